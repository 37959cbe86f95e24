#!/usr/bin/env bash
# Compile ARX's library (its src/main; the GUI lives in src/gui and is not built) with javac
# against the jars its repository carries under lib/ant/, then ArxRisk.java,
# ArxProfitability.java, ArxClassification.java and ArxHashing.java (this folder), and
# sound/Random.java (Smile's smile.math.Random drawing from a sound generator).
#
# usage: benchmarks/peers/build_arx.sh ARX_SOURCE [BUILD]
#   ARX_SOURCE  a source tree of ARX (github.com/arx-deidentifier/arx)
#   BUILD       where the classes go (default benchmarks/peers/build/arx); BUILD/classpath is
#               the class path to run ArxRisk with; BUILD/sound-classpath puts sound/ before it
#
# Two jars that lib/ant/ lists may be absent from a copy of the repository (Git LFS-sized
# files): pdfbox-app-2.0.1 (ARX's PDF certificates) is then taken from Debian's
# libpdfbox2-java (pdfbox 2.0.27, same API), and hadoop-core-1.2.1 is replaced at compile
# time by stubs/ (Hadoop's Writable interface, which Mahout's logistic regression in ARX's
# classification statistics implements; the risk analysis never loads it).
set -euo pipefail
source=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/build/arx}
mkdir -p "$build"
build=$(cd "$build" && pwd)
rm -rf "$build/classes" "$build/stubs"
mkdir -p "$build/classes" "$build/stubs"
# every jar of lib/ant but the SWT builds of other platforms (src/main needs none of SWT)
find "$source/lib/ant" -name '*.jar' | grep -v -e 'cocoa\.macosx' -e 'win32\.win32' | sort > "$build/jars"
if [ ! -e "$source/lib/ant/pdfbox/pdfbox-app-2.0.1.jar" ]; then
  ls /usr/share/java/pdfbox2.jar /usr/share/java/fontbox2.jar /usr/share/java/commons-logging.jar >> "$build/jars"
fi
classpath=$(paste -sd: "$build/jars")
compile=$classpath
if [ ! -e "$source/lib/ant/mahout/hadoop-core-1.2.1.jar" ]; then
  javac -d "$build/stubs" $(find "$here/stubs" -name '*.java')
  compile=$compile:$build/stubs
fi
find "$source/src/main" -name '*.java' | sort > "$build/sources"
javac -nowarn -encoding UTF-8 -proc:none -d "$build/classes" -cp "$compile" @"$build/sources" \
  "$here/ArxRisk.java" "$here/ArxProfitability.java" "$here/ArxClassification.java" \
  "$here/ArxHashing.java" 2> "$build/javac.log" || { cat "$build/javac.log" >&2; exit 1; }
# Smile's Random with a sound generator (sound/Random.java), on a class path of its own: build/arx/sound-classpath
rm -rf "$build/sound"
mkdir -p "$build/sound"
javac -nowarn -d "$build/sound" -cp "$compile" "$here/sound/Random.java"
# the resources src/main loads at run time (the risk package's HIPAA lists, labels)
(cd "$source/src/main" && find . -type f ! -name '*.java' -exec cp --parents {} "$build/classes" \;)
# the stubs stay on the run-time class path: Mahout's logistic regression loads Writable
echo "$build/classes:$classpath${compile#"$classpath"}" > "$build/classpath"
echo "$build/sound:$(cat "$build/classpath")" > "$build/sound-classpath"
echo "ARX compiled: $(wc -l < "$build/sources") sources; class path in $build/classpath" >&2
