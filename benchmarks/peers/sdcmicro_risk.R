# sdcMicro's risk figures for a CSV release, one JSON object per sampling fraction.
#
# Usage: Rscript sdcmicro_risk.R FILE DELIMITER QI[,QI...] FRACTION[,FRACTION...]
#
# Every column is read as text (no value is taken as missing). Each record gets the
# sampling weight 1/FRACTION (the uniform weights N/n), and sdcMicro computes, on the
# key variables QI:
#   measure_risk(): the individual risk of Benedetti & Franconi (indivRisk, "approx"),
#     its maximum, the global risk (mean) and the expected re-identifications (sum);
#   freqCalc(): the sample frequencies fk (sample uniques: fk == 1);
#   suda2(DisFraction = FRACTION): SUDA scores and DIS-SUDA scores, their maxima.
suppressPackageStartupMessages(library(sdcMicro))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 4) {
  message("usage: Rscript sdcmicro_risk.R FILE DELIMITER QI[,QI...] FRACTION[,FRACTION...]")
  quit(status = 2)
}
file <- args[[1]]
delimiter <- if (args[[2]] == "tab") "\t" else args[[2]]
qis <- strsplit(args[[3]], ",", fixed = TRUE)[[1]]
fractions <- strsplit(args[[4]], ",", fixed = TRUE)[[1]]

data <- read.csv(file, sep = delimiter, colClasses = "character", na.strings = character(0),
                 check.names = FALSE, quote = "\"", strip.white = FALSE)
missing <- setdiff(qis, colnames(data))
if (length(missing) > 0) stop("not a column of ", file, ": ", paste(missing, collapse = ", "))
keys <- data[, qis, drop = FALSE]
for (name in qis) keys[[name]] <- factor(keys[[name]])

value <- function(fraction) {
  parts <- as.numeric(strsplit(fraction, "/", fixed = TRUE)[[1]])
  if (length(parts) == 2) parts[[1]] / parts[[2]] else parts[[1]]
}
number <- function(x) if (is.na(x)) "\"NaN\"" else sprintf("%.17g", x)

for (fraction in fractions) {
  f <- value(fraction)
  weighted <- keys
  weighted$w <- rep(1 / f, nrow(keys))
  risk <- measure_risk(weighted, keyVars = qis, w = "w")
  frequencies <- freqCalc(weighted, keyVars = qis, w = "w")
  suda <- suda2(keys, variables = qis, DisFraction = f)
  fields <- c(
    source = sprintf("\"%s\"", basename(file)),
    fraction = sprintf("\"%s\"", fraction),
    rows = sprintf("%d", nrow(keys)),
    sample_uniques = sprintf("%d", sum(frequencies$fk == 1)),
    sample_uniqueness = number(sum(frequencies$fk == 1) / nrow(keys)),
    individual_risk_max = number(max(risk$Res[, "risk"])),
    global_risk = number(risk$global_risk),
    expected_reidentifications = number(risk$global_risk_ER),
    suda_score_max = number(max(suda$score)),
    dis_suda_max = number(max(suda$disScore)),
    dis_suda_mean = number(mean(suda$disScore))
  )
  cat("{", paste(sprintf("\"%s\": %s", names(fields), fields), collapse = ", "), "}\n", sep = "")
}
