/*
 * ARX's classification performance (StatisticsClassification) of a table, computed by ARX's own code.
 *
 * The table is loaded as ARX's input; ARX cross-validates each classifier on it (its
 * default folds, seed and classifier settings) and the driver prints, one line per
 * classifier, ARX's figures of the classifier trained on the input ("original") and of
 * ZeroR: accuracy, Brier score, and per value of the target its sensitivity, specificity
 * and ROC AUC (one value against the others).
 *
 * usage: ArxClassification FILE DELIMITER FEATURE[,FEATURE...] TARGET [CLASSIFIER[,CLASSIFIER...]]
 *   CLASSIFIER  logistic_regression, naive_bayes or random_forest (default: all three)
 */

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

import org.deidentifier.arx.ARXClassificationConfiguration;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.aggregates.StatisticsClassification;
import org.deidentifier.arx.aggregates.StatisticsClassification.ROCCurve;

public final class ArxClassification {

    private ArxClassification() {}

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: ArxClassification FILE DELIMITER FEATURE[,FEATURE...] TARGET [CLASSIFIER,...]");
            System.exit(2);
        }
        Data data = Data.create(new File(args[0]), StandardCharsets.UTF_8, args[1].charAt(0));
        DataHandle handle = data.getHandle();
        for (int column = 0; column < handle.getNumColumns(); column++) {
            data.getDefinition().setAttributeType(handle.getAttributeName(column), AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        String[] features = args[2].split(",");
        List<String> wanted = Arrays.asList((args.length == 5 ? args[4] : "logistic_regression,naive_bayes,random_forest")
                                            .split(","));
        for (String name : wanted) {
            ARXClassificationConfiguration<?> config;
            if (name.equals("logistic_regression")) {
                config = ARXClassificationConfiguration.createLogisticRegression();
            } else if (name.equals("naive_bayes")) {
                config = ARXClassificationConfiguration.createNaiveBayes();
            } else if (name.equals("random_forest")) {
                config = ARXClassificationConfiguration.createRandomForest();
            } else {
                throw new IllegalArgumentException("unknown classifier: " + name);
            }
            StatisticsClassification result = handle.getStatistics().getClassificationPerformance(features, args[3],
                                                                                                   config);
            StringBuilder line = new StringBuilder(name);
            line.append(" folds ").append(config.getNumFolds()).append(" seed ").append(config.getSeed());
            line.append(" original_accuracy ").append(result.getOriginalAccuracy());
            line.append(" zero_r_accuracy ").append(result.getZeroRAccuracy());
            line.append(" original_brier ").append(result.getOriginalBrierScore());
            line.append(" zero_r_brier ").append(result.getZerorBrierScore());
            for (String value : new TreeSet<>(result.getClassValues())) {
                ROCCurve original = result.getOriginalROCCurve(value);
                ROCCurve zeroR = result.getZeroRROCCurve(value);
                line.append(" class ").append(value.replace(' ', '_'));
                line.append(" sensitivity ").append(original.getSensitivity());
                line.append(" specificity ").append(original.getSpecificity());
                line.append(" auc ").append(original.getAUC());
                line.append(" zero_r_auc ").append(zeroR.getAUC());
            }
            System.out.println(line);
        }
    }
}
