# Oracle for analyses/meta/escalc.go: R metafor's escalc() for the 2x2,
# proportion, correlation and incidence-rate measures, every zero-cell
# option, and the back-transformations of a summary (predict(..., transf)).
# Run from this directory:  Rscript gen_escalc.R   (writes escalc.json)
#
# Data: metadat's dat.bcg (2x2 tables), dat.pritz1997 (proportions),
# dat.molloy2014 (correlations), dat.hart1999 (incidence rates, the
# warfarin arm), and small hand-made inputs with zero cells, double zeros,
# all-event tables, |r| = 1 and tiny samples. Each case is escalc() with
# one measure and one zero-cell setting; each case whose effects are all
# defined is also summarised with rma(method = "DL") (closed form, so the
# comparison is at 1e-9) and predict() with metafor's back-transformation.
suppressMessages(library(metafor))
library(jsonlite)

enc <- function(x) {
  # NA, NaN and +-Inf as strings; numbers with full precision.
  lapply(as.numeric(x), function(v) {
    if (is.nan(v)) "NaN" else if (is.na(v)) "NA" else if (is.infinite(v)) (if (v > 0) "Inf" else "-Inf") else v
  })
}

transf_of <- function(measure) {
  switch(measure, OR = exp, RR = exp, IRLN = exp, PLO = transf.ilogit,
         PAS = transf.iarcsin, PFT = transf.ipft.hm, ZCOR = transf.ztor, NULL)
}

cases <- list()
add_case <- function(name, measure, input, args, ni = NULL) {
  e <- do.call(escalc, c(list(measure = measure), input, args))
  cs <- list(name = name, measure = measure, input = lapply(input, enc),
             add = if (!is.null(args$add)) args$add else if (measure %in% c("PAS", "PFT")) 0 else 0.5,
             to = if (is.null(args$to)) "only0" else args$to,
             drop00 = if (is.null(args$drop00)) FALSE else args$drop00, default = length(args) == 0,
             yi = enc(e$yi), vi = enc(e$vi))
  ok <- is.finite(e$yi) & is.finite(e$vi) & e$vi > 0
  if (sum(ok) >= 2) {
    f <- rma(e$yi[ok], e$vi[ok], method = "DL")
    tf <- transf_of(measure)
    p <- if (is.null(tf)) predict(f) else if (measure == "PFT")
      predict(f, transf = tf, targs = list(ni = ni[ok])) else predict(f, transf = tf)
    cs$summary <- list(est = c(f$beta), ci_low = f$ci.lb, ci_high = f$ci.ub,
                       pi_low = predict(f)$pi.lb, pi_high = predict(f)$pi.ub,
                       bt = enc(c(p$pred, p$ci.lb, p$ci.ub, p$pi.lb, p$pi.ub)))
    if (measure == "PFT") cs$summary$ni <- ni[ok]
  }
  cases[[length(cases) + 1]] <<- cs
}

zero_opts <- list(list(), list(to = "all"), list(to = "if0all"), list(to = "none"),
                  list(drop00 = TRUE), list(to = "all", drop00 = TRUE), list(add = 1),
                  list(add = 0.25, to = "if0all"))
optname <- function(a) if (length(a) == 0) "default" else paste(names(a), unlist(a), sep = "=", collapse = ",")

# 2x2 tables.
data(dat.bcg, package = "metadat")
bcg <- list(ai = dat.bcg$tpos, bi = dat.bcg$tneg, ci = dat.bcg$cpos, di = dat.bcg$cneg)
hand <- list(ai = c(0, 2, 0, 10, 5, 3, 0, 12), bi = c(10, 8, 10, 0, 5, 0, 20, 3),
             ci = c(3, 0, 0, 10, 4, 2, 1, 0), di = c(7, 10, 10, 0, 6, 5, 19, 0))
# one zero in one study only (if0all adds everywhere)
hand1 <- list(ai = c(4, 6, 0, 9), bi = c(16, 14, 20, 11), ci = c(8, 5, 2, 10), di = c(12, 15, 18, 10))
for (m in c("OR", "RR", "RD")) {
  add_case(paste0("bcg/", m), m, bcg, list())
  add_case(paste0("bcg_groups/", m), m, list(ai = dat.bcg$tpos, n1i = dat.bcg$tpos + dat.bcg$tneg,
                                           ci = dat.bcg$cpos, n2i = dat.bcg$cpos + dat.bcg$cneg), list())
  for (a in zero_opts) {
    add_case(paste0("hand/", m, "/", optname(a)), m, hand, a)
    add_case(paste0("hand1/", m, "/", optname(a)), m, hand1, a)
  }
}

# Proportions.
data(dat.pritz1997, package = "metadat")
pritz <- list(xi = dat.pritz1997$xi, ni = dat.pritz1997$ni)
handp <- list(xi = c(0, 3, 10, 1, 7, 0), ni = c(12, 20, 10, 1, 9, 5))
handp1 <- list(xi = c(4, 6, 0, 9), ni = c(20, 25, 18, 30))
for (m in c("PR", "PLO", "PAS", "PFT")) {
  add_case(paste0("pritz/", m), m, pritz, list(), ni = pritz$ni)
  for (a in zero_opts) {
    if (!is.null(a$drop00)) next
    add_case(paste0("handp/", m, "/", optname(a)), m, handp, a, ni = handp$ni)
    add_case(paste0("handp1/", m, "/", optname(a)), m, handp1, a, ni = handp1$ni)
  }
}

# Correlations.
data(dat.molloy2014, package = "metadat")
molloy <- list(ri = dat.molloy2014$ri, ni = dat.molloy2014$ni)
handr <- list(ri = c(0.3, -0.5, 1, -1, 0, 0.9, 0.2, 0.1), ni = c(50, 20, 30, 12, 8, 4, 3, 2))
for (m in c("COR", "ZCOR")) {
  add_case(paste0("molloy/", m), m, molloy, list())
  add_case(paste0("handr/", m), m, handr, list())
}

# Incidence rates.
data(dat.hart1999, package = "metadat")
hart <- list(xi = dat.hart1999$x1i, ti = dat.hart1999$t1i)
handi <- list(xi = c(0, 3, 12, 0, 7), ti = c(100, 250.5, 80, 40, 1000))
handi1 <- list(xi = c(4, 6, 0, 9), ti = c(200, 250, 180, 300))
for (m in c("IR", "IRLN")) {
  add_case(paste0("hart/", m), m, hart, list())
  for (a in zero_opts) {
    if (!is.null(a$drop00)) next
    add_case(paste0("handi/", m, "/", optname(a)), m, handi, a)
    add_case(paste0("handi1/", m, "/", optname(a)), m, handi1, a)
  }
}

# Refusals: metafor's error message for each bad input (always in row 2).
refusals <- list()
refuse <- function(name, measure, input) {
  msg <- tryCatch({ do.call(escalc, c(list(measure = measure), input)); "" },
                  error = function(e) conditionMessage(e))
  refusals[[length(refusals) + 1]] <<- list(name = name, measure = measure,
                                            input = lapply(input, enc), error = msg)
}
refuse("negative_count", "OR", list(ai = c(1, -1), bi = c(5, 5), ci = c(2, 2), di = c(3, 3)))
refuse("events_above_n", "RR", list(ai = c(1, 7), n1i = c(5, 6), ci = c(2, 2), n2i = c(5, 5)))
refuse("negative_n", "RD", list(ai = c(0, 0), n1i = c(5, -1), ci = c(2, 0), n2i = c(5, 5)))
refuse("prop_above_n", "PLO", list(xi = c(1, 6), ni = c(5, 5)))
refuse("prop_negative", "PR", list(xi = c(1, -2), ni = c(5, 5)))
refuse("prop_negative_n", "PAS", list(xi = c(1, 0), ni = c(5, -5)))
refuse("r_above_1", "COR", list(ri = c(0.2, 1.2), ni = c(10, 10)))
refuse("r_below_m1", "ZCOR", list(ri = c(0.2, -1.01), ni = c(10, 10)))
refuse("r_negative_n", "ZCOR", list(ri = c(0.1, 0.2), ni = c(10, -3)))
refuse("rate_negative", "IR", list(xi = c(1, -2), ti = c(10, 10)))
refuse("rate_negative_t", "IRLN", list(xi = c(1, 2), ti = c(10, -10)))
refuse("rate_zero_t", "IR", list(xi = c(1, 0), ti = c(10, 0)))
refuse("prop_zero_n", "PFT", list(xi = c(1, 0), ni = c(5, 0)))
refuse("r_zero_n", "COR", list(ri = c(0.1, 0.2), ni = c(10, 0)))

meta <- list(generator = "gen_escalc.R", R = R.version.string,
             metafor = as.character(packageVersion("metafor")))
writeLines(toJSON(list(meta = meta, cases = cases, refusals = refusals), auto_unbox = TRUE,
                  digits = NA, pretty = FALSE, null = "null"), "escalc.json")
