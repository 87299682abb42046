# Oracle for analyses/meta/pubbias.go and cumul.go: R metafor's
# trimfill() (L0 and R0, side chosen or given), ranktest(), fsn()
# (Rosenthal, Orwin, Rosenberg) and cumul().
# Run from this directory:  Rscript gen_pubbias.R   (writes pubbias.json)
#
# Data: metadat's dat.hackshaw1998 (log odds ratios) and dat.bcg (log risk
# ratios), plus random cases (with ties in vi, k = 3 and k = 60 for the
# rank test). Iterative estimators run under tight control
# (threshold = tol = 1e-12 * min(vi)), passed through trimfill()'s '...'
# to every refit, with the model's test passed too (metafor refits the
# filled data with test = "z" unless told).
suppressMessages(library(metafor))
library(jsonlite)
set.seed(20261130)

data(dat.hackshaw1998, package = "metadat")
data(dat.bcg, package = "metadat")
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)

sets <- list(
  list(name = "hackshaw1998", yi = c(dat.hackshaw1998$yi), vi = c(dat.hackshaw1998$vi), by = dat.hackshaw1998$year),
  list(name = "bcg", yi = c(bcg$yi), vi = c(bcg$vi), by = dat.bcg$year))
for (i in 1:6) {
  k <- sample(6:25, 1)
  vi <- exp(runif(k, log(5e-3), log(0.5)))
  yi <- 0.3 + rnorm(k, sd = sqrt(vi + c(0, 0.05, 0.3)[(i %% 3) + 1]))
  # small studies with large positive effects: asymmetry to fill
  if (i %% 2 == 0) yi <- yi + 1.5 * sqrt(vi)
  if (i %% 3 == 0) yi <- -yi
  sets[[length(sets) + 1]] <- list(name = sprintf("random_%02d", i), yi = yi, vi = vi, by = round(runif(k, 1990, 2000)))
}

tight <- function(vi) list(threshold = 1e-12 * min(vi), tol = 1e-12 * min(vi), maxiter = 10000)

out <- list()
for (s in sets) {
  yi <- s$yi; vi <- s$vi; ctl <- tight(vi)
  tf <- list(); cu <- list()
  for (m in c("FE", "DL", "REML", "PM")) for (t in c("z", "knha")) {
    res <- suppressWarnings(rma(yi, vi, method = m, test = t, control = ctl))
    for (est in c("L0", "R0")) for (side in c("auto", "left", "right")) {
      f <- tryCatch(suppressWarnings(if (side == "auto") trimfill(res, estimator = est, test = t, control = ctl)
                                     else trimfill(res, side = side, estimator = est, test = t, control = ctl)),
                    error = function(e) NULL)
      if (is.null(f)) next
      tf[[length(tf) + 1]] <- list(method = m, test = t, estimator = est, side_arg = side, side = f$side,
        k0 = f$k0, se_k0 = f$se.k0, p_k0 = if (is.na(f$p.k0)) "NA" else f$p.k0,
        filled_yi = I(c(f$yi[f$fill])), filled_vi = I(c(f$vi[f$fill])),
        est = c(f$beta), se = f$se, stat = f$zval, p = f$pval, ci_low = f$ci.lb, ci_high = f$ci.ub,
        tau2 = f$tau2, QE = f$QE, QEp = f$QEp, I2 = f$I2, H2 = f$H2)
    }
    for (dec in c(FALSE, TRUE)) {
      cm <- suppressWarnings(cumul(res, order = s$by, decreasing = dec))
      cu[[length(cu) + 1]] <- list(method = m, test = t, decreasing = dec,
        est = cm$estimate, se = cm$se, p = cm$pvals, ci_low = cm$ci.lb, ci_high = cm$ci.ub,
        Q = cm$Q, Qp = cm$Qp, tau2 = if (is.null(cm$tau2)) rep(0, length(yi)) else cm$tau2, I2 = cm$I2, H2 = cm$H2)
    }
  }
  rt <- suppressWarnings(ranktest(yi, vi))
  fs <- list()
  for (a in c(0.05, 0.10)) {
    for (ty in c("Rosenthal", "Orwin", "Rosenberg")) {
      f <- fsn(yi, vi, type = ty, alpha = a)
      fs[[length(fs) + 1]] <- list(type = ty, alpha = a, target = "default", N = f$fsnum,
        p = if (is.na(f$pval)) "NA" else f$pval, meanes = if (is.na(f$meanes)) "NA" else f$meanes,
        target_used = if (is.na(f$target)) "NA" else f$target)
    }
    for (tg in c(0.05, -0.05)) {
      f <- fsn(yi, vi, type = "Orwin", alpha = a, target = tg)
      fs[[length(fs) + 1]] <- list(type = "Orwin", alpha = a, target = tg, N = f$fsnum, p = "NA",
        meanes = f$meanes, target_used = f$target)
    }
  }
  out[[length(out) + 1]] <- list(name = s$name, yi = yi, vi = vi, by = s$by, trimfill = tf, cumul = cu,
                                 ranktest = list(tau = c(rt$tau), p = rt$pval), fsn = fs)
}

# Rank test only: ties in vi (normal approximation), k = 3, k = 60 (exact).
ranks <- list()
# p_sym: the exact p by the symmetry of the null distribution, from R's own
# pkendall (P(T <= q)) on the lower side: R's 1 - P(T <= q - 1) cancels to
# 0 or below for p under ~1e-15 (k40_strong).
addrank <- function(name, yi, vi) {
  rt <- suppressWarnings(ranktest(yi, vi))
  n <- length(yi); N <- n * (n - 1) / 2
  q <- round((c(rt$tau) + 1) * n * (n - 1) / 4)
  p.sym <- 2 * .Call(stats:::C_pKendall, min(q, N - q), n)
  ranks[[length(ranks) + 1]] <<- list(name = name, yi = yi, vi = vi, tau = c(rt$tau), p = rt$pval,
                                      p_sym = min(1, p.sym), ties = any(duplicated(vi)))
}
addrank("ties", c(0.1, 0.5, 0.3, 0.9, -0.2, 0.4, 0.7, 0.2), c(0.01, 0.04, 0.01, 0.09, 0.04, 0.02, 0.09, 0.02))
addrank("k3", c(0.1, 0.5, 0.9), c(0.01, 0.04, 0.09))
v60 <- exp(runif(60, log(1e-3), log(0.5)))
addrank("k60", 0.2 + 2 * sqrt(v60) + rnorm(60, sd = sqrt(v60)), v60)
v40 <- exp(runif(40, log(1e-3), log(0.5)))
addrank("k40_strong", 0.2 + 6 * sqrt(v40) + rnorm(40, sd = 0.2 * sqrt(v40)), v40)

meta <- list(generator = "gen_pubbias.R", R = R.version.string,
             metafor = as.character(packageVersion("metafor")))
writeLines(toJSON(list(meta = meta, sets = out, ranks = ranks), auto_unbox = TRUE, digits = NA,
                  pretty = FALSE, na = "string"), "pubbias.json")
