# Oracle for analyses/meta_sensitivity.go: R metafor's leave1out(),
# influence() and regtest() (default model "rma", predictor "sei").
# Run from this directory:  Rscript gen_sensitivity.R   (writes sensitivity.json)
#
# 20 random cases (k = 3..30: tau^2 = 0, moderate and huge heterogeneity,
# one or two outliers), each fitted with every estimator (FE, DL, REML, PM,
# ML, HE, HS, SJ, EB) and both tests (z, knha). Iterative estimators are
# fitted as in gen_forms.R under tight control (threshold = tol = 1e-13 *
# max(tau^2, min(vi))), which leave1out(), influence() and regtest()
# reuse for their refits.
suppressMessages(library(metafor))
library(jsonlite)
set.seed(20240616)

methods <- c("FE", "DL", "REML", "PM", "ML", "HE", "HS", "SJ", "EB")
tests <- c("z", "knha")
iterative <- c("REML", "PM", "ML", "EB")

fit1 <- function(yi, vi, m, t, alpha) {
  lvl <- 100 * (1 - alpha)
  ctl <- list(maxiter = 100000, tau2.max = 1e7)
  f <- suppressWarnings(rma(yi, vi, method = m, test = t, level = lvl, control = ctl))
  if (m %in% iterative) {
    eps <- 1e-13 * max(f$tau2, min(vi))
    ctl <- list(threshold = eps, tol = eps, maxiter = 100000, tau2.max = 1e7)
    f <- suppressWarnings(rma(yi, vi, method = m, test = t, level = lvl, control = ctl))
  }
  f
}

cases <- list()
for (i in 1:20) {
  k <- if (i <= 2) 3 else if (i == 3) 30 else sample(3:16, 1)
  lev <- c("zero", "moderate", "huge", "outlier")[(i %% 4) + 1]
  vi <- exp(runif(k, log(1e-3), log(0.5)))
  tau2 <- c(zero = 0, moderate = 0.05, huge = 5, outlier = 0.01)[[lev]]
  yi <- rnorm(1) + rnorm(k, sd = sqrt(vi + tau2))
  if (lev == "zero") yi <- rnorm(1) + 0.1 * rnorm(k, sd = sqrt(vi))
  if (lev == "outlier") yi[1] <- yi[1] + 3 + 5 * sqrt(vi[1])
  if (lev == "outlier" && k > 6) yi[k] <- yi[k] - 2
  alpha <- if (i %% 5 == 0) 0.10 else 0.05
  fits <- list()
  for (m in methods) {
    fm <- list()
    for (t in tests) {
      f <- fit1(yi, vi, m, t, alpha)
      l <- suppressWarnings(leave1out(f))
      inf <- suppressWarnings(influence(f))
      rt <- suppressWarnings(regtest(f))
      fm[[t]] <- list(
        leave1out = list(estimate = l$estimate, se = l$se, ci_low = l$ci.lb, ci_high = l$ci.ub,
                         p = l$pval, Q = l$Q, tau2 = l$tau2, I2 = l$I2, H2 = l$H2),
        influence = list(rstudent = inf$inf$rstudent, dffits = inf$inf$dffits, cooks_d = inf$inf$cook.d,
                         cov_r = inf$inf$cov.r, tau2_del = inf$inf$tau2.del, Q_del = inf$inf$QE.del,
                         hat = inf$inf$hat, weight = inf$inf$weight, dfbetas = inf$dfbs[[1]],
                         influential = inf$is.infl),
        regtest = list(z = rt$zval, p = rt$pval, df = if (is.null(rt$ddf) || is.na(rt$ddf)) 0 else rt$ddf,
                       est = rt$est, ci_low = rt$ci.lb, ci_high = rt$ci.ub))
    }
    fits[[m]] <- fm
  }
  cases[[i]] <- list(name = sprintf("sens_%02d_%s", i, lev), alpha = alpha, yi = yi, vi = vi, fits = fits)
}

# jsonlite prints at most 15 significant digits: write 17 (round-trip).
num17 <- function(x) {
  if (is.list(x)) return(lapply(x, num17))
  if (!is.numeric(x)) return(x)
  s <- ifelse(is.na(x), "null", sprintf("%.17g", as.double(x)))
  structure(if (length(x) == 1L) s else paste0("[", paste(s, collapse = ","), "]"), class = "json")
}
meta <- list(generator = "gen_sensitivity.R", R = R.version.string,
             metafor = as.character(packageVersion("metafor")))
writeLines(toJSON(num17(list(meta = meta, cases = cases)), auto_unbox = TRUE, json_verbatim = TRUE, pretty = FALSE),
           "sensitivity.json")
