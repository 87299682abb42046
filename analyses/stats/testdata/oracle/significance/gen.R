# Oracle for the Nemenyi q quantile (Demšar 2006): R's qtukey(1 - alpha, k, Inf) / sqrt(2)
# for k = 2..50 and alpha in 0.01, 0.05, 0.10.  Run: Rscript gen.R > qtukey.json
alphas <- c(0.01, 0.05, 0.10)
rows <- c()
for (a in alphas) for (k in 2:50) {
  rows <- c(rows, sprintf('{"alpha":%s,"k":%d,"q":%.17g}', format(a), k, qtukey(1 - a, k, Inf) / sqrt(2)))
}
cat(sprintf('{"generator":"gen.R","versions":{"R":"%s"},"cases":[%s]}\n',
            paste(R.version$major, R.version$minor, sep = "."), paste(rows, collapse = ",")))
