/*
 * The feature vectors ARX's logistic regression and naive Bayes read (MultiClassLogisticRegression,
 * MultiClassNaiveBayes): Mahout's encoders, as ARX configures them, hashing each word into ARX's
 * default vector length (1000).
 *
 * Reads one word per line on standard input ("Attribute-INDEX:VALUE", INDEX the column's
 * position in the table, as ARX spells a feature value) and prints the word and each
 * position it sets with the weight added there; the first line is the intercept's.
 *
 * usage: ArxHashing < WORDS
 */

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import org.apache.mahout.math.DenseVector;
import org.apache.mahout.vectorizer.encoders.ConstantValueEncoder;
import org.apache.mahout.vectorizer.encoders.StaticWordValueEncoder;

public final class ArxHashing {

    private static final int LENGTH = 1000;

    private ArxHashing() {}

    private static void print(String word, DenseVector vector) {
        StringBuilder line = new StringBuilder(word);
        for (int i = 0; i < LENGTH; i++) {
            if (vector.get(i) != 0) {
                line.append('\t').append(i).append(':').append(vector.get(i));
            }
        }
        System.out.println(line);
    }

    public static void main(String[] args) throws Exception {
        DenseVector intercept = new DenseVector(LENGTH);
        new ConstantValueEncoder("intercept").addToVector("1", intercept);
        print("intercept", intercept);
        StaticWordValueEncoder encoder = new StaticWordValueEncoder("feature");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String word = in.readLine(); word != null; word = in.readLine()) {
            DenseVector vector = new DenseVector(LENGTH);
            encoder.addToVector(word, 1, vector);
            print(word, vector);
        }
    }
}
