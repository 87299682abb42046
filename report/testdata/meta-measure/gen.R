# Fixtures of TestMetaMeasureBuild: a meta_analysis over a summary of
# counts (measure = "RR", metadat's dat.bcg) and of proportions
# (measure = "PFT", dat.pritz1997), built by evalbook and by metafor;
# the heterogeneity's Q-profile intervals as confint(rma); for dat.bcg with
# sensitivity = true, trimfill(), ranktest() and fsn(); with mods, the
# meta-regressions ~ ablat, ~ ablat + year and ~ alloc (categorical).
# Run: Rscript gen.R (metafor 3.8 from Debian's r-cran-metafor).
suppressMessages(library(metafor))
options(digits = 17)
out <- list()
bcg <- dat.bcg
bcg$dataset <- paste0(gsub("[^A-Za-z]", "", bcg$author), "-", bcg$year)
write.csv(data.frame(dataset = bcg$dataset, ai = bcg$tpos, bi = bcg$tneg, ci = bcg$cpos, di = bcg$cneg,
                     ablat = bcg$ablat, year = bcg$year, alloc = bcg$alloc),
          "bcg.csv", row.names = FALSE, quote = FALSE)
es <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
m <- rma(yi, vi, data = es, method = "DL")
p <- predict(m, transf = exp)
# confint with a tight tolerance: uniroot's default (1e-4) is the limit otherwise
hci <- function(m) {
  r <- confint(m, control = list(tol = 1e-13 * max(1, m$tau2), maxiter = 10000))$random
  list(tau2 = unname(r["tau^2", ]), I2 = unname(r["I^2(%)", ]), H2 = unname(r["H^2", ]))
}
out$rr <- list(het = hci(m), effect = m$b[1], ci_low = m$ci.lb, ci_high = m$ci.ub, tau2 = m$tau2, I2 = m$I2,
               natural = list(effect = p$pred, ci_low = p$ci.lb, ci_high = p$ci.ub, pi_low = p$pi.lb, pi_high = p$pi.ub))
reg <- function(f) {
  r <- rma(yi, vi, mods = f, data = cbind(es, ablat = dat.bcg$ablat, year = dat.bcg$year, alloc = dat.bcg$alloc), method = "DL")
  list(terms = rownames(r$beta), estimate = c(r$beta), se = r$se, statistic = r$zval, p = r$pval, ci_low = r$ci.lb, ci_high = r$ci.ub,
       QM = r$QM, df_QM = r$QMdf[1], p_QM = r$QMp, QE = r$QE, p_QE = r$QEp, tau2_res = r$tau2, R2 = r$R2)
}
out$rr$mods <- list(ablat = reg(~ ablat), ablat_year = reg(~ ablat + year), alloc = reg(~ alloc))
tf <- trimfill(m)
rt <- ranktest(m)
out$rr$pubbias <- list(side = tf$side, k0 = tf$k0, effect = tf$b[1], ci_low = tf$ci.lb, ci_high = tf$ci.ub,
                       ranktest_tau = unname(rt$tau), ranktest_p = rt$pval,
                       fsn_rosenthal = fsn(yi, vi, data = es, type = "Rosenthal")$fsnum,
                       fsn_orwin = fsn(yi, vi, data = es, type = "Orwin")$fsnum,
                       fsn_rosenberg = fsn(yi, vi, data = es, type = "Rosenberg")$fsnum)
pr <- dat.pritz1997
pr$dataset <- paste0("study-", pr$study)
write.csv(data.frame(dataset = pr$dataset, xi = pr$xi, ni = pr$ni), "pritz.csv", row.names = FALSE, quote = FALSE)
es2 <- escalc(measure = "PFT", xi = xi, ni = ni, data = pr)
m2 <- rma(yi, vi, data = es2, method = "DL")
p2 <- predict(m2, transf = transf.ipft.hm, targs = list(ni = pr$ni))
out$pft <- list(het = hci(m2), effect = m2$b[1], ci_low = m2$ci.lb, ci_high = m2$ci.ub, tau2 = m2$tau2, I2 = m2$I2,
                natural = list(effect = p2$pred, ci_low = p2$ci.lb, ci_high = p2$ci.ub, pi_low = p2$pi.lb, pi_high = p2$pi.ub))
writeLines(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "expected.json")

# Subgroups from a summary column: dat.bcg's alloc (RR, DL), fitted
# separately per subgroup and as one model with a common tau^2
# (mods = ~ factor(alloc) - 1 for the estimates, ~ factor(alloc) for QM);
# dat.bangertdrowns2004's grade (generic yi, vi; REML, Knapp-Hartung).
common <- function(es, g, method, test, tau2 = NULL) {
  es$g <- factor(g)
  m0 <- rma(yi, vi, mods = ~ g - 1, data = es, method = method, test = test, tau2 = tau2,
            control = list(threshold = 1e-12, maxiter = 10000))
  m1 <- rma(yi, vi, mods = ~ g, data = es, method = method, test = test, tau2 = tau2,
            control = list(threshold = 1e-12, maxiter = 10000))
  p <- predict(m0, newmods = diag(nlevels(es$g)))
  list(groups = levels(es$g), effect = c(m0$beta), se = m0$se, ci_low = m0$ci.lb, ci_high = m0$ci.ub, p = m0$pval,
       pi_low = p$pi.lb, pi_high = p$pi.ub, tau2 = m0$tau2, QM = m1$QM, df_QM = m1$QMdf, p_QM = m1$QMp,
       QE = m1$QE, df_QE = m1$k - m1$p, p_QE = m1$QEp)
}
separate <- function(es, g, method, test, tau2 = NULL) {
  lapply(split(seq_len(nrow(es)), g), function(i) {
    m <- rma(yi, vi, data = es[i, ], method = method, test = test, tau2 = tau2)
    list(effect = m$b[1], se = m$se, ci_low = m$ci.lb, ci_high = m$ci.ub, tau2 = m$tau2)
  })
}
out$subgroups <- list(bcg_common = common(es, dat.bcg$alloc, "DL", "z"),
                      bcg_separate = separate(es, dat.bcg$alloc, "DL", "z"))
bd <- dat.bangertdrowns2004
bd$dataset <- paste0(gsub("[^A-Za-z]", "", bd$author), "-", bd$id)
write.csv(data.frame(dataset = bd$dataset, yi = bd$yi, vi = bd$vi, grade = paste0("grade", bd$grade), year = bd$year),
          "bangert.csv", row.names = FALSE, quote = FALSE)
out$subgroups$bangert_common <- common(bd, paste0("grade", bd$grade), "REML", "knha")
# tau^2 fixed at 0.04: the common model and the separate fits keep it.
out$subgroups$bcg_common_fixed <- common(es, dat.bcg$alloc, "REML", "z", tau2 = 0.04)
out$subgroups$bcg_separate_fixed <- separate(es, dat.bcg$alloc, "REML", "z", tau2 = 0.04)

# test = "t" and a fixed tau^2 on dat.bcg's RR: rma(test = "t") refers z to
# t(k - 1) without the Knapp-Hartung scaling; rma(tau2 = 0.04) fixes tau^2.
fit <- function(m) {
  p <- predict(m)
  list(effect = m$b[1], se = m$se, stat = m$zval, p = m$pval, ci_low = m$ci.lb, ci_high = m$ci.ub,
       pi_low = p$pi.lb, pi_high = p$pi.ub, tau2 = m$tau2, Q = m$QE, I2 = m$I2, H2 = m$H2)
}
ctl <- list(threshold = 1e-12, maxiter = 10000)
out$tests <- list(t_reml = fit(rma(yi, vi, data = es, method = "REML", test = "t", control = ctl)),
                  fixed = fit(rma(yi, vi, data = es, tau2 = 0.04)),
                  fixed_knha = fit(rma(yi, vi, data = es, tau2 = 0.04, test = "knha")))

# Cumulative meta-analysis of dat.bcg's RR by year (two trials of 1973: ties
# keep the file's order), as cumul(); DL with z, REML with Knapp-Hartung, the
# fixed-effect model, and tau^2 fixed at 0.04 with the t test.
cum <- function(m) {
  cm <- cumul(m, order = dat.bcg$year)
  list(dataset = bcg$dataset[order(dat.bcg$year)], effect = cm$estimate, se = cm$se, p = cm$pval,
       ci_low = cm$ci.lb, ci_high = cm$ci.ub, Q = cm$Q, p_Q = cm$Qp, tau2 = cm$tau2, I2 = cm$I2, H2 = cm$H2)
}
out$cumulative <- list(dl = cum(m), reml_knha = cum(rma(yi, vi, data = es, method = "REML", test = "knha", control = ctl)),
                       fe = cum(rma(yi, vi, data = es, method = "FE")), fixed_t = cum(rma(yi, vi, data = es, tau2 = 0.04, test = "t")))

# The bubble plot of ~ ablat (regplot): predict() over 50 evenly spaced
# values of ablat, and the weights of the model (percent); DL with z, and
# REML with Knapp-Hartung.
bub <- function(method, test) {
  r <- rma(yi, vi, mods = ~ ablat, data = cbind(es, ablat = dat.bcg$ablat), method = method, test = test, control = ctl)
  xs <- seq(min(dat.bcg$ablat), max(dat.bcg$ablat), length.out = 50)
  p <- predict(r, newmods = xs)
  list(x = xs, pred = p$pred, ci_low = p$ci.lb, ci_high = p$ci.ub, weight = unname(weights(r)))
}
out$bubble <- list(yi = c(es$yi), vi = c(es$vi), ablat = dat.bcg$ablat, dl = bub("DL", "z"), reml_knha = bub("REML", "knha"))
writeLines(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "expected.json")
