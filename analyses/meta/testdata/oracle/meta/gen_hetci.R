# Oracle for analyses/meta/heterogeneity.go: R metafor's confint() of a
# random-effects model (Q-profile interval of tau^2, tau, I^2 and H^2),
# with and without moderators, including its edge cases: a lower bound of
# 0, the null set (both bounds 0) and an upper bound beyond the searched
# range (> tau2.max).
# Run from this directory:  Rscript gen_hetci.R   (writes hetci.json)
#
# Iterative estimators are fitted with threshold = 1e-13 * max(tau^2, min vi)
# (tau2.max left at its default, since confint() searches up to the
# fit's tau2.max when one is set) and confint() runs uniroot with
# tol = 1e-13 * max(1, tau^2), so both sides hold the roots to ~1e-13.
suppressMessages(library(metafor))
library(jsonlite)
set.seed(20261129)

methods <- c("DL", "REML", "PM", "ML", "HE", "HS", "SJ", "EB")
iterative <- c("REML", "PM", "ML", "EB")

cases <- list()
add <- function(name, yi, vi, x = NULL, alpha = 0.05) {
  fits <- list()
  for (m in methods) {
    fit <- function(...) if (is.null(x)) rma(yi, vi, method = m, level = 100 * (1 - alpha), ...) else
      rma(yi, vi, mods = x, method = m, level = 100 * (1 - alpha), ...)
    f <- suppressWarnings(fit())
    if (m %in% iterative) {
      eps <- 1e-13 * max(f$tau2, min(vi))
      f <- suppressWarnings(fit(control = list(threshold = eps, tol = eps, maxiter = 10000)))
    }
    ci <- suppressWarnings(confint(f, control = list(tol = 1e-13 * max(1, f$tau2), maxiter = 10000)))
    r <- ci$random
    fits[[m]] <- list(tau2 = f$tau2, I2 = f$I2, H2 = f$H2, vt = f$vt,
                      tau2_ci = r[1, ], tau_ci = r[2, ], I2_ci = r[3, ], H2_ci = r[4, ],
                      lb_sign = ci$lb.sign, ub_sign = ci$ub.sign, null = ci$ci.null)
  }
  cases[[length(cases) + 1]] <<- list(name = name, alpha = alpha, yi = yi, vi = vi,
                                      x = if (is.null(x)) I(numeric(0)) else I(x), fits = fits)
}

data(dat.bcg, package = "metadat")
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
add("bcg", c(bcg$yi), c(bcg$vi))
add("bcg/ablat", c(bcg$yi), c(bcg$vi), x = dat.bcg$ablat)
add("bcg/alpha10", c(bcg$yi), c(bcg$vi), alpha = 0.10)
# Lower bound 0: Q(0) below the upper quantile.
add("lower0", c(0.20, 0.35, 0.10, 0.28, 0.05, 0.22), c(0.02, 0.03, 0.025, 0.04, 0.02, 0.03))
# The null set: Q(0) below the lower quantile (effects nearly equal).
add("null_set", c(0.200, 0.201, 0.199, 0.2005, 0.2, 0.1995, 0.2002), c(0.04, 0.05, 0.03, 0.06, 0.05, 0.04, 0.05))
# Upper bound not found below tau2.max = max(100, 10 tau^2): k = 3, huge spread.
add("upper_beyond", c(-20, 5, 31), c(0.01, 0.02, 0.015))
for (i in 1:10) {
  k <- sample(4:30, 1)
  vi <- exp(runif(k, log(1e-3), log(0.5)))
  tau2 <- c(0, 0.01, 0.1, 1, 10)[(i %% 5) + 1]
  x <- if (i %% 3 == 0) rnorm(k, 1990, 10) else NULL
  yi <- rnorm(1) + rnorm(k, sd = sqrt(vi + tau2)) + if (is.null(x)) 0 else 0.02 * (x - 1990)
  add(sprintf("random_%02d", i), yi, vi, x = x)
}

meta <- list(generator = "gen_hetci.R", R = R.version.string,
             metafor = as.character(packageVersion("metafor")))
writeLines(toJSON(list(meta = meta, cases = cases), auto_unbox = TRUE, digits = NA,
                  pretty = FALSE, na = "string"), "hetci.json")
