#!/usr/bin/env bash
# Install R, Rcpp and sdcMicro's dependencies from Debian's packages (as root), then sdcMicro
# itself from its source tree into a library of its own.
#
# usage: benchmarks/peers/install_sdcmicro.sh SDCMICRO_SOURCE [LIBRARY]
#   SDCMICRO_SOURCE  a source tree of sdcMicro (github.com/sdcTools/sdcMicro)
#   LIBRARY          where sdcMicro is installed (default benchmarks/peers/build/R);
#                    compare.py runs sdcmicro_risk.R with R_LIBS=LIBRARY
#
# Every package sdcMicro imports is in Debian 12 but prettydoc, which only its HTML report
# (report(), html_pretty) uses: the source is copied to BUILD/sdcMicro-patched and the
# prettydoc import removed from its DESCRIPTION and NAMESPACE; no other file is changed.
set -euo pipefail
source=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
library=${2:-$here/build/R}
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  r-base-core r-base-dev r-cran-rcpp r-cran-data.table r-cran-car r-cran-cardata r-cran-rmarkdown r-cran-knitr \
  r-cran-xtable r-cran-robustbase r-cran-cluster r-cran-mass r-cran-e1071 r-cran-ggplot2 r-cran-shiny \
  r-cran-haven r-cran-rhandsontable r-cran-dt r-cran-vim r-cran-httr r-cran-jsonlite
patched=$here/build/sdcMicro-patched
rm -rf "$patched"
cp -r "$source" "$patched"
sed -i -e '/^ *prettydoc,$/d' "$patched/DESCRIPTION"
sed -i -e '/^importFrom(prettydoc,/d' "$patched/NAMESPACE"
mkdir -p "$library"
MAKEFLAGS=-j2 R CMD INSTALL --no-docs --no-html --no-multiarch --library="$library" "$patched"
R_LIBS="$library" Rscript -e 'library(sdcMicro); cat("sdcMicro", as.character(packageVersion("sdcMicro")), "\n")'
