# Oracle for analyses/meta/regression.go: R metafor's meta-regression,
# rma(yi, vi, mods = ~ ..., method = m, test = t), for every estimator and
# every test (z, t, knha), and with tau^2 fixed at 0.04 (rma(tau2 = 0.04),
# key "FIX"): coefficients with se, statistic, p and CI (and predict()'s
# prediction interval without moderators); QM (chi^2, or F
# under t and knha), QE, residual tau^2, I^2, H^2, the pseudo R^2 and
# metafor's warnings.
# Run from this directory:  Rscript gen_regression.R   (writes regression.json)
#
# Data: metadat's dat.bcg (log risk ratios) with ~ ablat, ~ ablat + year,
# ~ alloc (categorical, treatment coding) and ~ ablat + alloc; and random
# cases with one to three numeric moderators. Iterative estimators are
# refitted under tight control as in gen_forms.R (threshold and tol
# 1e-13 * max(tau^2, min vi)) so that both sides hold the converged value.
suppressMessages(library(metafor))
library(jsonlite)
set.seed(20261128)

methods <- c("FE", "DL", "REML", "PM", "ML", "HE", "HS", "SJ", "EB")
tests <- c("z", "t", "knha")
iterative <- c("REML", "PM", "ML", "EB")

warns <- character(0)
fit1 <- function(yi, vi, X, m, t, tau2 = NULL) {
  if (ncol(X) == 0) X <- NULL
  ctl <- list(maxiter = 100000, tau2.max = 1e7)
  warns <<- character(0)
  fit <- function(...) if (is.null(X)) rma(yi, vi, ...) else rma(yi, vi, mods = X, ...)
  f <- withCallingHandlers(fit(method = m, test = t, tau2 = tau2, control = ctl),
                           warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  if (!is.null(tau2)) {
    # R^2 refits the intercept-only model with the fit's control: tight,
    # so that its tau^2 is the converged one.
    t0 <- rma(yi, vi, method = m)$tau2
    eps <- 1e-13 * max(t0, min(vi))
    ctl <- list(threshold = eps, tol = eps, maxiter = 10000, tau2.max = 1e7)
    return(suppressWarnings(fit(method = m, test = t, tau2 = tau2, control = ctl)))
  }
  if (m %in% iterative) {
    # With a moderator far from zero metafor's own arithmetic may not reach
    # 1e-13; then the tightest control that converges is used (recorded).
    for (rel in c(1e-13, 1e-12, 1e-11, 1e-10)) {
      eps <- rel * max(f$tau2, min(vi))
      ctl <- list(threshold = eps, tol = eps, maxiter = 10000, tau2.max = 1e7)
      g <- tryCatch(suppressWarnings(fit(method = m, test = t, control = ctl)),
                    error = function(e) NULL)
      if (!is.null(g)) { f <- g; f$rel <- rel; break }
    }
  }
  f
}

# predict()'s prediction interval of a model without moderators (metafor
# gives none for an FE model, nor with moderators without new values).
pi_of <- function(f) {
  if (length(f$beta) != 1) return(c(NA, NA))
  pl <- predict(f)
  if (is.null(pl$pi.lb)) c(NA, NA) else c(pl$pi.lb, pl$pi.ub)
}

cases <- list()
add <- function(name, yi, vi, mods, formula) {
  X <- model.matrix(formula, data = mods)[, -1, drop = FALSE]
  fits <- list()
  for (m in c(methods, "FIX")) for (t in tests) {
    f <- if (m == "FIX") fit1(yi, vi, X, "REML", t, tau2 = 0.04) else fit1(yi, vi, X, m, t)
    fits[[paste(m, t, sep = "/")]] <- list(warnings = I(warns),
      names = I(rownames(f$beta)),
      est = I(c(f$beta)), se = I(f$se), stat = I(f$zval), p = I(f$pval), ci_low = I(f$ci.lb), ci_high = I(f$ci.ub),
      QM = f$QM, QMdf = ifelse(is.na(f$QMdf), 0, f$QMdf), QMp = f$QMp, QE = f$QE, QEp = f$QEp,
      tau2 = f$tau2, I2 = if (is.null(f$I2)) NA else f$I2, H2 = if (is.null(f$H2)) NA else f$H2,
      R2 = if (is.null(f$R2)) NA else f$R2, control = if (is.null(f$rel)) NA else f$rel,
      pi = I(pi_of(f)))
  }
  num <- setNames(list(), character(0)); cat <- setNames(list(), character(0))
  for (v in all.vars(formula)) {
    if (is.numeric(mods[[v]])) num[[v]] <- mods[[v]] else cat[[v]] <- as.character(mods[[v]])
  }
  cases[[length(cases) + 1]] <<- list(name = name, yi = yi, vi = vi, terms = I(all.vars(formula)),
                                      numeric = num, categorical = cat, fits = fits)
}

data(dat.bcg, package = "metadat")
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
mods <- data.frame(ablat = dat.bcg$ablat, year = dat.bcg$year, alloc = dat.bcg$alloc)
add("bcg/intercept", c(bcg$yi), c(bcg$vi), mods, ~ 1)
add("bcg/ablat", c(bcg$yi), c(bcg$vi), mods, ~ ablat)
add("bcg/ablat+year", c(bcg$yi), c(bcg$vi), mods, ~ ablat + year)
add("bcg/alloc", c(bcg$yi), c(bcg$vi), mods, ~ alloc)
add("bcg/ablat+alloc", c(bcg$yi), c(bcg$vi), mods, ~ ablat + alloc)

for (i in 1:12) {
  k <- sample(8:40, 1)
  p <- 1 + (i %% 3)
  x <- matrix(rnorm(k * p, mean = runif(p, -5, 2000 * (i %% 2)), sd = runif(p, 0.5, 10)), k, p)
  colnames(x) <- paste0("x", 1:p)
  vi <- exp(runif(k, log(1e-3), log(0.5)))
  tau2 <- c(0, 0.02, 0.5, 3)[(i %% 4) + 1]
  beta <- rnorm(p, sd = 0.1 / apply(x, 2, sd))
  yi <- c(rnorm(1) + (x - rep(colMeans(x), each = k)) %*% beta + rnorm(k, sd = sqrt(vi + tau2)))
  g <- sample(c("a", "b", "c"), k, replace = TRUE)
  g[1:3] <- c("a", "b", "c")
  md <- data.frame(x, g = g)
  f <- if (i %% 4 == 0) as.formula(paste("~", paste(c(colnames(x), "g"), collapse = " + ")))
       else as.formula(paste("~", paste(colnames(x), collapse = " + ")))
  add(sprintf("random_%02d", i), yi, vi, md, f)
}

meta <- list(generator = "gen_regression.R", R = R.version.string,
             metafor = as.character(packageVersion("metafor")))
writeLines(toJSON(list(meta = meta, cases = cases), auto_unbox = TRUE, digits = NA,
                  pretty = FALSE, na = "string"), "regression.json")
