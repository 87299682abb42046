# Oracle for analyses/meta_fit.go: the fixed- and random-effects models of
# R metafor (rma.uni with an intercept only, test = "z", and predict()).
# Run from this directory:  Rscript gen.R   (writes models.json)
#
# REML and PM are iterative. metafor's defaults stop REML at a change of
# 1e-5 in tau^2 and PM at uniroot's tol = eps^0.25; the fixtures are made
# with control = list(threshold = 1e-12, tol = 1e-14, maxiter = 10000,
# tau2.max = 1e6) so they hold the converged estimates, which is what the
# Go code computes (same estimator, same update rule).
suppressMessages(library(metafor))
library(jsonlite)
set.seed(20231121)

ctl <- list(threshold = 1e-12, tol = 1e-14, maxiter = 10000, tau2.max = 1e6)

fit_all <- function(yi, vi, alpha) {
  out <- list()
  for (m in c("FE", "DL", "REML", "PM")) {
    f <- rma(yi, vi, method = m, level = 100 * (1 - alpha), control = ctl)
    p <- predict(f, level = 100 * (1 - alpha))
    out[[m]] <- list(est = c(f$beta), se = f$se, ci_low = f$ci.lb, ci_high = f$ci.ub,
                     p = f$pval, tau2 = f$tau2, Q = f$QE, p_Q = f$QEp,
                     I2 = f$I2, H2 = f$H2, pi_low = p$pi.lb, pi_high = p$pi.ub,
                     weights = unname(weights(f)) / 100)
  }
  out
}

cases <- list()
add <- function(name, yi, vi, alpha = 0.05, group = NULL) {
  cs <- list(name = name, alpha = alpha, y = yi, v = vi, fits = fit_all(yi, vi, alpha))
  if (!is.null(group)) {
    cs$group <- group
    sub <- list()
    est <- c(); se <- c()
    for (g in unique(group)) {
      s <- group == g
      sub[[g]] <- fit_all(yi[s], vi[s], alpha)
    }
    cs$subgroups <- sub
    # Test of subgroup differences: a fixed-effect model over the subgroup
    # summaries of each model.
    between <- list()
    for (m in c("FE", "DL", "REML", "PM")) {
      e <- sapply(unique(group), function(g) sub[[g]][[m]]$est)
      s <- sapply(unique(group), function(g) sub[[g]][[m]]$se)
      b <- rma(e, sei = s, method = "FE")
      between[[m]] <- list(Q = b$QE, df = length(e) - 1, p = b$QEp)
    }
    cs$between <- between
  }
  cases[[length(cases) + 1]] <<- cs
}

# k = 2 with tau^2 = 0 (nearly equal effects).
add("k2_homogeneous", c(0.30, 0.31), c(0.01, 0.02))
# k = 2 with heterogeneity.
add("k2_heterogeneous", c(-0.5, 1.2), c(0.02, 0.05))
# tau^2 = 0 for every estimator: Q well below df.
add("tau2_zero", c(0.20, 0.21, 0.19, 0.205, 0.2), c(0.04, 0.05, 0.03, 0.06, 0.05))
# Huge heterogeneity: effects far apart relative to tiny variances.
add("huge_heterogeneity", c(-3.1, -0.15, -0.58, -0.56, -0.22, -0.03, -0.05),
    c(0.0099, 7.7e-5, 4.8e-4, 7.6e-5, 4.9e-4, 5.0e-7, 2.0e-5))
add("alpha_10", c(0.1, 0.4, -0.2, 0.3), c(0.02, 0.03, 0.05, 0.01), alpha = 0.10)
# Random studies: k from 2 to 40, effect variances over four orders of magnitude.
for (i in 1:24) {
  k <- if (i <= 3) 2 + i else sample(2:40, 1)
  tau2 <- c(0, 0.001, 0.05, 0.5, 5)[(i %% 5) + 1]
  vi <- exp(runif(k, log(1e-4), log(1)))
  yi <- rnorm(k, mean = rnorm(1), sd = sqrt(vi + tau2))
  add(sprintf("random_%02d", i), yi, vi)
}
# Subgroups (a dataset attribute such as a domain).
for (i in 1:3) {
  k <- 12
  group <- rep(c("retail", "movies", "music"), length.out = k)
  vi <- exp(runif(k, log(1e-3), log(0.2)))
  yi <- rnorm(k, mean = c(retail = -0.2, movies = 0.3, music = 0)[group], sd = sqrt(vi + 0.02))
  add(sprintf("subgroups_%d", i), yi, vi, group = group)
}

meta <- list(generator = "gen.R", R = R.version.string,
             metafor = as.character(packageVersion("metafor")), control = ctl)
writeLines(toJSON(list(meta = meta, cases = cases), auto_unbox = TRUE, digits = NA, pretty = FALSE),
           "models.json")
