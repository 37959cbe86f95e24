/*
 * Compile-time stand-in for Hadoop's Writable interface (hadoop-core 1.2.1, whose jar ARX's
 * repository lists under lib/ant/mahout but which the mirrored copy lacks). Mahout's
 * logistic regression, which ARX's classification statistics use, implements it; nothing
 * of the risk analysis loads it. build_arx.sh compiles against it and does not put it on the
 * class path ArxRisk runs with.
 */
package org.apache.hadoop.io;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

public interface Writable {
    void write(DataOutput out) throws IOException;

    void readFields(DataInput in) throws IOException;
}
