/*
 * Prints ARX's re-identification risk estimates for a CSV file or a class-size histogram,
 * one JSON object per sampling fraction.
 *
 * It lives in ARX's package org.deidentifier.arx.risk so that it can run ARX's own
 * package-private estimators (ModelPitman, ModelZayatz, ModelSNB) and read the fitted
 * (theta, alpha) of ModelPitman's Newton-Raphson solver, which ARX computes and does not
 * expose: the solver is run again, exactly as ModelPitman's constructor runs it, through
 * ModelPitman's private methods (reflection). Nothing of ARX is changed.
 *
 * Usage:
 *   java -cp CLASSPATH org.deidentifier.arx.risk.ArxRisk data FILE DELIMITER QI[,QI...] FRACTION[,FRACTION...]
 *   java -cp CLASSPATH org.deidentifier.arx.risk.ArxRisk histogram SIZE:CLASSES[,SIZE:CLASSES...] FRACTION[,...]
 *
 * FRACTION is a decimal or p/q. Doubles are printed with Double.toString (shortest
 * representation that reads back to the same double); NaN as the string "NaN".
 */
package org.deidentifier.arx.risk;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXSolverConfiguration;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.common.WrappedBoolean;

import com.carrotsearch.hppc.IntIntOpenHashMap;

import de.linearbits.newtonraphson.Constraint2D;
import de.linearbits.newtonraphson.Function;
import de.linearbits.newtonraphson.NewtonRaphson2D;
import de.linearbits.newtonraphson.Pair;
import de.linearbits.newtonraphson.SquareMatrix2D;
import de.linearbits.newtonraphson.Vector2D;

public final class ArxRisk {

    private ArxRisk() {}

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        if (args.length == 5 && args[0].equals("data")) {
            data(new File(args[1]), delimiter(args[2]), args[3].split(","), fractions(args[4]));
        } else if (args.length == 3 && args[0].equals("histogram")) {
            histogram(args[1], fractions(args[2]));
        } else {
            System.err.println("usage: ArxRisk data FILE DELIMITER QI[,QI...] FRACTION[,...]\n"
                               + "       ArxRisk histogram SIZE:CLASSES[,...] FRACTION[,...]");
            System.exit(2);
        }
    }

    private static char delimiter(String text) {
        if (text.equals("tab")) { return '\t'; }
        if (text.length() != 1) { throw new IllegalArgumentException("a delimiter is one character: " + text); }
        return text.charAt(0);
    }

    private static double[] fractions(String text) {
        String[] parts = text.split(",");
        double[] out = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].trim();
            int slash = part.indexOf('/');
            out[i] = slash < 0 ? Double.parseDouble(part)
                               : Double.parseDouble(part.substring(0, slash)) / Double.parseDouble(part.substring(slash + 1));
        }
        return out;
    }

    private static void data(File file, char delimiter, String[] qis, double[] fractions) throws Exception {
        DataHandle header = Data.create(file, StandardCharsets.UTF_8, delimiter).getHandle();
        Data data = Data.create(file, StandardCharsets.UTF_8, delimiter);
        Set<String> chosen = new LinkedHashSet<>(Arrays.asList(qis));
        for (int column = 0; column < header.getNumColumns(); column++) {
            String name = header.getAttributeName(column);
            data.getDefinition().setAttributeType(name, chosen.remove(name) ? AttributeType.QUASI_IDENTIFYING_ATTRIBUTE
                                                                           : AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        if (!chosen.isEmpty()) { throw new IllegalArgumentException("not a column of " + file + ": " + chosen); }
        DataHandle handle = data.getHandle();
        int rows = handle.getNumRows();
        for (double fraction : fractions) {
            ARXPopulationModel population = ARXPopulationModel.create(rows, fraction);
            RiskEstimateBuilder builder = handle.getRiskEstimator(population);
            RiskModelHistogram histogram = builder.getEquivalenceClassModel();
            RiskModelSampleRisks sample = builder.getSampleBasedReidentificationRisk();
            RiskModelSampleSummary summary = builder.getSampleBasedRiskSummary(0.2d);
            StringBuilder out = new StringBuilder("{");
            field(out, "source", "\"" + file.getName() + "\"");
            field(out, "fraction", number(fraction));
            field(out, "population", Long.toString(population.getPopulationSize()));
            field(out, "rows", Integer.toString(rows));
            field(out, "classes", number(histogram.getNumClasses()));
            field(out, "histogram", histogramText(histogram));
            field(out, "sample_uniqueness", number(builder.getSampleBasedUniquenessRisk().getFractionOfUniqueRecords()));
            field(out, "average_risk", number(sample.getAverageRisk()));
            field(out, "highest_risk", number(sample.getHighestRisk()));
            field(out, "prosecutor_highest", number(summary.getProsecutorRisk().getHighestRisk()));
            field(out, "prosecutor_success", number(summary.getProsecutorRisk().getSuccessRate()));
            field(out, "journalist_highest", number(summary.getJournalistRisk().getHighestRisk()));
            field(out, "journalist_success", number(summary.getJournalistRisk().getSuccessRate()));
            field(out, "marketer", number(summary.getMarketerRisk().getSuccessRate()));
            population(out, population, histogram, builder.getPopulationBasedUniquenessRisk());
            System.out.println(out.append("}"));
        }
    }

    private static void histogram(String text, double[] fractions) throws Exception {
        IntIntOpenHashMap distribution = new IntIntOpenHashMap();
        int rows = 0;
        for (String part : text.split(",")) {
            String[] pair = part.trim().split(":");
            int size = Integer.parseInt(pair[0]);
            int count = Integer.parseInt(pair[1]);
            distribution.putOrAdd(size, count, count);
            rows += size * count;
        }
        RiskModelHistogram histogram = new RiskModelHistogram(distribution);
        for (double fraction : fractions) {
            ARXPopulationModel population = ARXPopulationModel.create(rows, fraction);
            StringBuilder out = new StringBuilder("{");
            field(out, "source", "\"histogram\"");
            field(out, "fraction", number(fraction));
            field(out, "population", Long.toString(population.getPopulationSize()));
            field(out, "rows", Integer.toString(rows));
            field(out, "classes", number(histogram.getNumClasses()));
            field(out, "histogram", histogramText(histogram));
            RiskModelPopulationUniqueness model = new RiskModelPopulationUniqueness(population, histogram,
                                                                                    ARXSolverConfiguration.create());
            population(out, population, histogram, model);
            System.out.println(out.append("}"));
        }
    }

    private static void population(StringBuilder out, ARXPopulationModel population, RiskModelHistogram histogram,
                                   RiskModelPopulationUniqueness model) throws Exception {
        double size = population.getPopulationSize();
        boolean uniques = histogram.getHistogram().length > 0 && hasUniques(histogram.getHistogram());
        // ARX's public figures (0 where its estimator gave NaN or 0) and the Dankar rule's choice
        field(out, "pitman", number(model.getFractionOfUniqueTuplesPitman()));
        field(out, "zayatz", number(model.getFractionOfUniqueTuplesZayatz()));
        field(out, "snb", number(model.getFractionOfUniqueTuplesSNB()));
        field(out, "dankar", number(model.getFractionOfUniqueTuplesDankar()));
        field(out, "dankar_model", "\"" + model.getPopulationUniquenessModel() + "\"");
        if (!uniques) { return; }
        WrappedBoolean stop = new WrappedBoolean();
        ARXSolverConfiguration config = ARXSolverConfiguration.create();
        // The raw estimates (NaN kept) of ARX's three estimators, as RiskModelPopulationUniqueness builds them
        field(out, "pitman_raw", number(new ModelPitman(population, histogram, config, stop).getNumUniques() / size));
        field(out, "zayatz_raw", number(new ModelZayatz(population, histogram, stop).getNumUniques() / size));
        field(out, "snb_raw", number(new ModelSNB(population, histogram, config, stop).getNumUniques() / size));
        Vector2D fit = pitmanFit(population, histogram, config, stop);
        field(out, "pitman_theta", number(fit.x));
        field(out, "pitman_alpha", number(fit.y));
    }

    private static boolean hasUniques(int[] histogram) {
        for (int i = 0; i < histogram.length; i += 2) {
            if (histogram[i] == 1 && histogram[i + 1] > 0) { return true; }
        }
        return false;
    }

    /** ModelPitman's solver run as its constructor runs it, returning the (theta, alpha) it ends at. */
    @SuppressWarnings("unchecked")
    private static Vector2D pitmanFit(ARXPopulationModel population, RiskModelHistogram histogram,
                                      ARXSolverConfiguration config, WrappedBoolean stop) throws Exception {
        ModelPitman pitman = new ModelPitman(population, histogram, config, stop);
        Method closed = ModelPitman.class.getDeclaredMethod("getMasterFunctionClosed", int[].class, double.class,
                                                            double.class);
        Method iterative = ModelPitman.class.getDeclaredMethod("getMasterFunctionIterative", int[].class,
                                                               double.class, double.class);
        Method objective = ModelPitman.class.getDeclaredMethod("getObjectFunctionsIterative", int[].class,
                                                               double.class, double.class);
        Method constraint = ModelPitman.class.getDeclaredMethod("getConstraint");
        for (Method method : new Method[] { closed, iterative, objective, constraint }) { method.setAccessible(true); }
        int[] classes = histogram.getHistogram();
        double c1 = 0, c2 = 0;
        for (int i = 0; i < classes.length; i += 2) {
            if (classes[i] == 1) { c1 = classes[i + 1]; }
            if (classes[i] == 2) { c2 = classes[i + 1]; }
        }
        double u = histogram.getNumClasses();
        double n = histogram.getNumRecords();
        c2 = c2 != 0 ? c2 : 1;
        double c = (c1 * (c1 - 1)) / c2;
        double t = ((n * u * c) - (c1 * (n - 1) * ((2 * u) + c))) / (((2 * c1 * u) + (c1 * c)) - (n * c));
        double a = ((t * (c1 - n)) + ((n - 1) * c1)) / (n * u);
        Constraint2D bound = (Constraint2D) constraint.invoke(pitman);
        NewtonRaphson2D solver = new NewtonRaphson2D(
            (Function<Vector2D, Pair<Vector2D, SquareMatrix2D>>) closed.invoke(pitman, classes, u, n), bound)
            .configure(config);
        Vector2D result = solver.solve(new Vector2D(t, a));
        boolean retry = Double.isNaN(result.x) || Double.isNaN(result.y);
        if (!retry) {
            Vector2D test = ((Function<Vector2D, Vector2D>) objective.invoke(pitman, classes, u, n)).evaluate(result);
            retry = Double.isNaN(test.x) || Double.isNaN(test.y) || Math.abs(test.x) > config.getAccuracy()
                    || Math.abs(test.y) > config.getAccuracy();
        }
        if (retry) {
            solver = new NewtonRaphson2D(
                (Function<Vector2D, Pair<Vector2D, SquareMatrix2D>>) iterative.invoke(pitman, classes, u, n), bound)
                .configure(config);
            result = solver.solve(new Vector2D(t, a));
        }
        return result;
    }

    private static String histogramText(RiskModelHistogram histogram) {
        int[] classes = histogram.getHistogram();
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < classes.length; i += 2) { parts.add(classes[i] + ":" + classes[i + 1]); }
        return "\"" + String.join(",", parts) + "\"";
    }

    private static void field(StringBuilder out, String name, String value) {
        if (out.length() > 1) { out.append(", "); }
        out.append('"').append(name).append("\": ").append(value);
    }

    private static String number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "\"" + value + "\"" : Double.toString(value);
    }
}
