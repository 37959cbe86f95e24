/*
 * ARX's profitability figures (Wan et al. 2015) of a release, computed by ARX's own code.
 *
 * The release is loaded as ARX's input data; every quasi-identifier gets a hierarchy of
 * one level (its values), so ARX's lattice holds one transformation, the identity, and
 * ARX's entropy-based information loss of every class is 0. For each of ARX's four
 * criteria (ProfitabilityProsecutor, ProfitabilityJournalist and their no-attack
 * variants; the journalist's research subset is the whole release) ARX anonymizes with a
 * suppression limit of 100 %, so the classes the criterion rejects are suppressed, and the
 * driver prints how many records ARX suppressed, the publisher payout ARX's quality model
 * (MetricSDNMPublisherPayout) reports for the records it keeps, and the no-attack k. A
 * run with 1-anonymity (nothing suppressed) gives the publisher payout of the whole release.
 *
 * usage: ArxProfitability FILE DELIMITER QI[,QI...] GAIN COST BENEFIT LOSS
 */

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXCostBenefitConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy.DefaultHierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.DataSubset;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.PrivacyCriterion;
import org.deidentifier.arx.criteria.ProfitabilityJournalist;
import org.deidentifier.arx.criteria.ProfitabilityJournalistNoAttack;
import org.deidentifier.arx.criteria.ProfitabilityProsecutor;
import org.deidentifier.arx.criteria.ProfitabilityProsecutorNoAttack;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.v2.QualityMetadata;

public final class ArxProfitability {

    private ArxProfitability() {}

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        if (args.length != 7) {
            System.err.println("usage: ArxProfitability FILE DELIMITER QI[,QI...] GAIN COST BENEFIT LOSS");
            System.exit(2);
        }
        File file = new File(args[0]);
        char delimiter = args[1].equals("tab") ? '\t' : args[1].charAt(0);
        String[] qi = args[2].split(",");
        ARXCostBenefitConfiguration costs = ARXCostBenefitConfiguration.create()
                .setAdversaryGain(Double.parseDouble(args[3])).setAdversaryCost(Double.parseDouble(args[4]))
                .setPublisherBenefit(Double.parseDouble(args[5])).setPublisherLoss(Double.parseDouble(args[6]));
        ARXConfiguration probe = ARXConfiguration.create();
        probe.setCostBenefitConfiguration(costs);
        ProfitabilityProsecutorNoAttack noAttack = new ProfitabilityProsecutorNoAttack();
        noAttack.initialize(null, probe); // reads only the cost/benefit configuration
        System.out.println("no_attack_k " + noAttack.getK());
        System.out.println("rows " + load(file, delimiter, qi).getHandle().getNumRows());
        run("release", file, delimiter, qi, costs, false);
        run("prosecutor", file, delimiter, qi, costs, false);
        run("journalist", file, delimiter, qi, costs, true);
        run("no_attack_prosecutor", file, delimiter, qi, costs, false);
        run("no_attack_journalist", file, delimiter, qi, costs, true);
    }

    private static Data load(File file, char delimiter, String[] qi) throws Exception {
        Data data = Data.create(file, StandardCharsets.UTF_8, delimiter);
        DataHandle handle = data.getHandle();
        for (int column = 0; column < handle.getNumColumns(); column++) {
            data.getDefinition().setAttributeType(handle.getAttributeName(column), AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        for (String name : qi) {
            int column = handle.getColumnIndexOf(name);
            DefaultHierarchy hierarchy = AttributeType.Hierarchy.create();
            for (String value : handle.getDistinctValues(column)) {
                hierarchy.add(value);
            }
            data.getDefinition().setAttributeType(name, hierarchy);
        }
        return data;
    }

    private static void run(String name, File file, char delimiter, String[] qi, ARXCostBenefitConfiguration costs,
                            boolean journalist) throws Exception {
        Data data = load(file, delimiter, qi);
        DataSubset all = DataSubset.create(data, new java.util.HashSet<>(range(data.getHandle().getNumRows())));
        PrivacyCriterion criterion;
        switch (name) {
            case "release": criterion = new KAnonymity(1); break;
            case "prosecutor": criterion = new ProfitabilityProsecutor(); break;
            case "journalist": criterion = new ProfitabilityJournalist(all); break;
            case "no_attack_prosecutor": criterion = new ProfitabilityProsecutorNoAttack(); break;
            default: criterion = new ProfitabilityJournalistNoAttack(all); break;
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.setCostBenefitConfiguration(costs);
        config.setSuppressionLimit(1d);
        config.setQualityModel(Metric.createPublisherPayoutMetric(journalist));
        config.addPrivacyModel(criterion);
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        ARXNode node = result.getGlobalOptimum();
        if (node == null) {
            System.out.println(name + " no_solution");
            return;
        }
        DataHandle output = result.getOutput(node, false);
        int suppressed = 0;
        for (int row = 0; row < output.getNumRows(); row++) {
            if (output.isOutlier(row)) {
                suppressed++;
            }
        }
        System.out.println(name + " suppressed " + suppressed);
        for (QualityMetadata<?> metadata : node.getHighestScore().getMetadata()) {
            System.out.println(name + " " + metadata.getParameter().replace(' ', '_').toLowerCase(Locale.ROOT) + " "
                               + metadata.getValue());
        }
    }

    private static java.util.List<Integer> range(int rows) {
        java.util.List<Integer> result = new java.util.ArrayList<>();
        for (int row = 0; row < rows; row++) {
            result.add(row);
        }
        return result;
    }
}
