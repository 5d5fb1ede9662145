# glmnet_fit.R MTX LABELS FAMILY LAMBDA THRESHS OUTDIR [REPEATS]  (called by bench/compare.py)
# One glmnet fit per thresh (comma list) at the single lambda LAMBDA (= STRADS lambda / n),
# alpha = 1, intercept = FALSE, standardize = FALSE. Prints "load SECONDS" (readMM + conversion
# to a dgCMatrix) and per fit "fit THRESH SECONDS WEIGHTS_FILE" (elapsed time of glmnet(), the
# least of REPEATS fits, default 1).
suppressPackageStartupMessages({ library(Matrix); library(glmnet) })
a <- commandArgs(trailingOnly = TRUE)
t0 <- proc.time()[["elapsed"]]
x <- as(readMM(a[1]), "CsparseMatrix")
y <- scan(a[2], quiet = TRUE)
if (a[3] == "binomial") y <- factor(ifelse(y > 0, 1, -1), levels = c(-1, 1))  # models P(y = +1)
cat("load", proc.time()[["elapsed"]] - t0, "\n")
lam <- as.numeric(a[4])
repeats <- if (length(a) >= 7) as.integer(a[7]) else 1L
for (th in strsplit(a[5], ",")[[1]]) {
  el <- Inf
  for (r in seq_len(repeats)) {
    t0 <- proc.time()[["elapsed"]]
    fit <- glmnet(x, y, family = a[3], alpha = 1, lambda = lam, intercept = FALSE,
                  standardize = FALSE, thresh = as.numeric(th), maxit = 10000000)
    el <- min(el, proc.time()[["elapsed"]] - t0)
  }
  w <- as.numeric(as.matrix(coef(fit, s = lam, exact = FALSE))[-1, 1])
  f <- file.path(a[6], paste0("w-", th, ".txt"))
  write(formatC(w, digits = 17, format = "g"), f, ncolumns = 1)
  cat("fit", th, el, f, "\n")
}
