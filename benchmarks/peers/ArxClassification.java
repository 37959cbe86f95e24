/*
 * ARX's classification accuracy (StatisticsClassification) of a table, computed by ARX's own code.
 *
 * The table is loaded as ARX's input; ARX cross-validates each classifier on it (its
 * default folds and seed) and the driver prints ARX's accuracy of the classifier trained
 * on the input ("original accuracy") and of ZeroR, one line per classifier.
 *
 * usage: ArxClassification FILE DELIMITER FEATURE[,FEATURE...] TARGET
 */

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.deidentifier.arx.ARXClassificationConfiguration;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.aggregates.StatisticsClassification;

public final class ArxClassification {

    private ArxClassification() {}

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        if (args.length != 4) {
            System.err.println("usage: ArxClassification FILE DELIMITER FEATURE[,FEATURE...] TARGET");
            System.exit(2);
        }
        Data data = Data.create(new File(args[0]), StandardCharsets.UTF_8, args[1].charAt(0));
        DataHandle handle = data.getHandle();
        for (int column = 0; column < handle.getNumColumns(); column++) {
            data.getDefinition().setAttributeType(handle.getAttributeName(column), AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        String[] features = args[2].split(",");
        ARXClassificationConfiguration<?>[] configs = {
            ARXClassificationConfiguration.createLogisticRegression(),
            ARXClassificationConfiguration.createNaiveBayes(),
            ARXClassificationConfiguration.createRandomForest(),
        };
        String[] names = {"logistic_regression", "naive_bayes", "random_forest"};
        for (int i = 0; i < configs.length; i++) {
            StatisticsClassification result = handle.getStatistics().getClassificationPerformance(features, args[3],
                                                                                                   configs[i]);
            System.out.println(names[i] + " original_accuracy " + result.getOriginalAccuracy() + " zero_r_accuracy "
                               + result.getZeroRAccuracy() + " folds " + configs[i].getNumFolds()
                               + " seed " + configs[i].getSeed());
        }
    }
}
