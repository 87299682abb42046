# Oracle for the summary forms, effect sizes, tau^2 estimators and tests of
# analyses/meta*.go: R metafor (Debian's r-cran-metafor, 3.8).
# Run from this directory:  Rscript gen_forms.R   (writes forms.json)
#
# For every input form and effect (paired summaries: md, smd, hedges_g by
# Borenstein et al. 2009's formulas; per-unit paired values: rom as escalc "ROMC";
# two-group summaries: escalc "MD", "SMD" (Hedges' g, default vtype "LS")
# and "ROM"; generic yi with vi or sei) there are 40 random cases with
# k = 2..60, from tau^2 = 0 (equal effects) to huge heterogeneity. Each case
# is fitted with rma(yi, vi, method = m, test = t) for every estimator
# m in FE, DL, REML, PM, ML, HE, HS, SJ, EB and test t in z, knha, and
# predict() gives the prediction interval.
#
# Iterative estimators (ML, REML, EB by Fisher scoring, PM by uniroot) are
# run to convergence: metafor's defaults stop at a change of 1e-5 in tau^2
# (uniroot at tol = eps^0.25), so every fit is made twice, the second time
# with threshold and tol at 1e-13 times the larger of the first fit's
# tau^2 and the smallest vi (a tau^2 below that changes no output), so
# that the fixture holds the converged estimate to ~1e-13 relative, which
# is what the Go code computes (same estimator, same starting value and
# update rule, run until the change is negligible).
suppressMessages(library(metafor))
library(jsonlite)
set.seed(20240615)

methods <- c("FE", "DL", "REML", "PM", "ML", "HE", "HS", "SJ", "EB")
tests <- c("z", "knha")
iterative <- c("REML", "PM", "ML", "EB")

tight <- function(t2, vi) {
  eps <- 1e-13 * max(t2, min(vi, na.rm = TRUE))
  list(threshold = eps, tol = eps, maxiter = 100000, tau2.max = 1e7)
}

fit1 <- function(yi, vi, m, t, alpha) {
  lvl <- 100 * (1 - alpha)
  f <- suppressWarnings(rma(yi, vi, method = m, test = t, level = lvl,
                            control = list(maxiter = 100000, tau2.max = 1e7)))
  if (m %in% iterative) {
    f <- suppressWarnings(rma(yi, vi, method = m, test = t, level = lvl, control = tight(f$tau2, vi)))
  }
  f
}

fits <- function(yi, vi, alpha) {
  out <- list()
  for (m in methods) {
    fm <- list()
    for (t in tests) {
      f <- fit1(yi, vi, m, t, alpha)
      p <- predict(f, level = 100 * (1 - alpha))
      if (t == "z") {
        fm$tau2 <- f$tau2
        fm$est <- c(f$beta)
        fm$I2 <- f$I2
        fm$H2 <- f$H2
      }
      # se, ci_low, ci_high, p, pi_low, pi_high (predict() gives no
      # prediction interval for a fixed-effect model: NA)
      nn <- function(x) if (is.null(x)) NA else x
      fm[[t]] <- c(f$se, f$ci.lb, f$ci.ub, f$pval, nn(p$pi.lb), nn(p$pi.ub))
    }
    out[[m]] <- fm
  }
  out
}

# Heterogeneity levels, cycled over the cases: "equal" makes every true
# effect equal and the sampling noise tiny (tau^2 = 0 for every
# estimator); "huge" makes tau^2 about 100 times the typical variance.
levels <- c("equal", "none", "small", "moderate", "huge")
tau_scale <- c(equal = 0, none = 0, small = 0.3, moderate = 1, huge = 10)

cases <- list()
add <- function(form, effect, i, input, yi, vi, alpha) {
  f <- fits(yi, vi, alpha)
  q <- rma(yi, vi, method = "FE")
  cases[[length(cases) + 1]] <<- list(name = sprintf("%s_%s_%02d", form, effect, i), form = form,
                                      effect = effect, alpha = alpha, input = input, yi = yi, vi = vi,
                                      Q = q$QE, p_Q = q$QEp, fits = f)
}

pick_k <- function(i) {
  if (i <= 3) return(2)
  if (i == 4) return(60)
  if (i %% 2 == 0) return(sample(3:10, 1))
  sample(3:60, 1)
}
pick_alpha <- function(i) if (i %% 7 == 0) 0.10 else 0.05

for (effect in c("md", "smd", "hedges_g")) {
  # Paired summaries: dataset, n, mean_diff, sd_diff, r.
  for (i in 1:40) {
    k <- pick_k(i); lev <- levels[(i %% 5) + 1]
    n <- sample(c(3:10, 20, 50, 100, 300), k, replace = TRUE) # n = 2: J = 0 for hedges_g
    if (lev == "equal") n <- pmax(n, 50)
    scale <- 10^runif(1, -2, 1)
    sd <- scale * runif(k, 0.5, 2)
    r <- runif(k, -0.5, 0.95)
    delta <- scale * (rnorm(1) + tau_scale[[lev]] * rnorm(k))
    noise <- if (lev == "equal") 1e-6 else 1
    md <- delta + noise * sd / sqrt(n) * rnorm(k)
    if (i == 10) {
      # Exactly equal effects with unequal variances: tau^2 = 0 for every
      # estimator, SJ included.
      n <- rep(n[1], k)
      md <- if (effect == "md") rep(delta[1], k) else sd / sqrt(2 * (1 - r))
    }
    vi_md <- sd^2 / n
    if (effect == "md") {
      yi <- md; vi <- vi_md
    } else {
      sw <- sd / sqrt(2 * (1 - r))
      d <- md / sw
      vd <- (1 / n + d^2 / (2 * n)) * 2 * (1 - r)
      if (effect == "smd") {
        yi <- d; vi <- vd
      } else {
        J <- 1 - 3 / (4 * (n - 1) - 1)
        yi <- J * d; vi <- J^2 * vd
      }
    }
    add("paired", effect, i, list(n = n, mean_diff = md, sd_diff = sd, r = r), yi, vi, pick_alpha(i))
  }
}

# Per-unit paired values, ratio of means: escalc "ROMC" from each method's
# mean and sd over the pairs, r = Pearson. Raw values are generated and
# summarised here; the first five cases keep them for an end-to-end test
# of the streaming builder.
for (i in 1:40) {
  k <- pick_k(i); lev <- levels[(i %% 5) + 1]
  n <- sample(3:40, k, replace = TRUE)
  mt <- mc <- sdt <- sdc <- r <- numeric(k)
  raw <- list()
  lr <- 0.2 * (rnorm(1) + tau_scale[[lev]] * rnorm(k))
  for (j in 1:k) {
    base <- runif(1, 1, 10)
    rho <- runif(1, -0.3, 0.95)
    z1 <- rnorm(n[j]); z2 <- rho * z1 + sqrt(1 - rho^2) * rnorm(n[j])
    cv <- if (lev == "equal") 1e-4 else runif(1, 0.05, 0.3)
    xc <- base * (1 + cv * z1)
    xt <- base * exp(lr[j]) * (1 + cv * z2)
    mt[j] <- mean(xt); mc[j] <- mean(xc); sdt[j] <- sd(xt); sdc[j] <- sd(xc); r[j] <- cor(xt, xc)
    if (i <= 5) raw[[j]] <- list(t = xt, c = xc)
  }
  if (i == 10) mt <- mc * exp(lr[1]) # exactly equal log ratios
  es <- escalc("ROMC", m1i = mt, m2i = mc, sd1i = sdt, sd2i = sdc, ni = n, ri = r)
  input <- list(n = n, mean_t = mt, sd_t = sdt, mean_c = mc, sd_c = sdc, r = r)
  if (i <= 5) input$raw <- raw
  add("units", "rom", i, input, c(es$yi), c(es$vi), pick_alpha(i))
}

# Two-group summaries: escalc "MD", "SMD", "ROM".
for (effect in c("md", "smd", "rom")) {
  measure <- c(md = "MD", smd = "SMD", rom = "ROM")[[effect]]
  for (i in 1:40) {
    k <- pick_k(i); lev <- levels[(i %% 5) + 1]
    n1 <- sample(c(2:10, 20, 50, 200), k, replace = TRUE)
    n2 <- sample(c(2:10, 20, 50, 200), k, replace = TRUE)
    if (lev == "equal") { n1 <- pmax(n1, 50); n2 <- pmax(n2, 50) }
    scale <- 10^runif(1, -2, 1)
    sd1 <- scale * runif(k, 0.5, 2); sd2 <- scale * runif(k, 0.5, 2)
    m2 <- scale * runif(k, 5, 20)
    noise <- if (lev == "equal") 1e-6 else 1
    if (effect == "rom") {
      lr <- 0.2 * (rnorm(1) + tau_scale[[lev]] * rnorm(k))
      m1 <- m2 * exp(lr) + noise * sd1 / sqrt(n1) * rnorm(k)
    } else {
      delta <- (if (effect == "smd") sd2 else scale) * (rnorm(1) + tau_scale[[lev]] * rnorm(k))
      m1 <- m2 + delta + noise * sqrt(sd1^2 / n1 + sd2^2 / n2) * rnorm(k)
    }
    if (i == 10) {
      # Exactly equal effects with unequal variances.
      mi <- n1 + n2 - 2
      sp <- sqrt(((n1 - 1) * sd1^2 + (n2 - 1) * sd2^2) / mi)
      cm <- exp(lgamma(mi / 2) - log(sqrt(mi / 2)) - lgamma((mi - 1) / 2))
      m1 <- switch(effect, md = m2 + scale, smd = m2 + 0.5 * sp / cm, rom = m2 * 1.2)
    }
    es <- escalc(measure, m1i = m1, sd1i = sd1, n1i = n1, m2i = m2, sd2i = sd2, n2i = n2)
    add("two_group", effect, i, list(m1i = m1, sd1i = sd1, n1i = n1, m2i = m2, sd2i = sd2, n2i = n2),
        c(es$yi), c(es$vi), pick_alpha(i))
  }
}

# Generic effects: dataset, yi, vi and dataset, yi, sei.
for (effect in c("vi", "sei")) {
  for (i in 1:40) {
    k <- pick_k(i); lev <- levels[(i %% 5) + 1]
    vi <- exp(runif(k, log(1e-4), log(1)))
    tau2 <- c(equal = 0, none = 0, small = 0.01, moderate = 0.1, huge = 10)[[lev]]
    yi <- rnorm(1) + if (lev == "equal") 1e-6 * rnorm(k) else rnorm(k, sd = sqrt(vi + tau2))
    if (i == 10) yi <- rep(yi[1], k) # exactly equal effects
    input <- if (effect == "vi") list(yi = yi, vi = vi) else list(yi = yi, sei = sqrt(vi))
    if (effect == "sei") vi <- input$sei^2
    add("generic", effect, i, input, yi, vi, pick_alpha(i))
  }
}

# jsonlite prints at most 15 significant digits; inputs rounded to 15
# digits change an ill-conditioned tau^2 (tiny effects, tau^2 far below
# vi) in its 10th digit, so every number is written with 17 (round-trip).
num17 <- function(x) {
  if (is.list(x)) return(lapply(x, num17))
  if (!is.numeric(x)) return(x)
  s <- ifelse(is.na(x), "null", sprintf("%.17g", as.double(x)))
  structure(if (length(x) == 1L) s else paste0("[", paste(s, collapse = ","), "]"), class = "json")
}

meta <- list(generator = "gen_forms.R", R = R.version.string,
             metafor = as.character(packageVersion("metafor")),
             control = "iterative fits refitted with threshold = tol = 1e-13 * max(tau2, min(vi))",
             fit_vectors = c("se", "ci_low", "ci_high", "p", "pi_low", "pi_high"))
writeLines(toJSON(num17(list(meta = meta, cases = cases)), auto_unbox = TRUE, json_verbatim = TRUE, pretty = FALSE),
           "forms.json")
