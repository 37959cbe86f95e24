/*
 * Smile 1.3.1's smile.math.Random with a sound generator, to run ARX's classification with.
 *
 * Smile's Random draws from smile.math.random.UniversalGenerator, whose doubles have 24 bits:
 * its nextInt(n) then reaches only n / 2^(a-1) of the n values when 2^a is the largest power
 * of 2 dividing n (750 of 6000), and a random forest's bootstrap sample of a class of n
 * training records is drawn among that fixed fraction of them. This class keeps Smile's API
 * (the methods Smile calls) and draws from java.util.SplittableRandom, whose nextInt(n)
 * reaches every value. On the class path before ARX's smile-1.3.1-java7.jar, it replaces
 * Smile's; nothing else changes.
 */
package smile.math;

import java.util.SplittableRandom;
import smile.math.random.RandomNumberGenerator;

public class Random {

    private SplittableRandom rng;

    public Random() {
        this(54217137L);
    }

    public Random(long seed) {
        rng = new SplittableRandom(seed);
    }

    public Random(RandomNumberGenerator ignored) {
        this();
    }

    public double nextDouble() {
        return rng.nextDouble();
    }

    public void nextDoubles(double[] d) {
        for (int i = 0; i < d.length; i++) {
            d[i] = rng.nextDouble();
        }
    }

    public double nextDouble(double lo, double hi) {
        return lo + (hi - lo) * rng.nextDouble();
    }

    public void nextDoubles(double[] d, double lo, double hi) {
        for (int i = 0; i < d.length; i++) {
            d[i] = nextDouble(lo, hi);
        }
    }

    public void setSeed(long seed) {
        rng = new SplittableRandom(seed);
    }

    public int nextInt() {
        return rng.nextInt();
    }

    public int nextInt(int n) {
        return rng.nextInt(n);
    }

    public long nextLong() {
        return rng.nextLong();
    }

    public int[] permutate(int n) {
        int[] x = new int[n];
        for (int i = 0; i < n; i++) {
            x[i] = i;
        }
        permutate(x);
        return x;
    }

    public void permutate(int[] x) {
        for (int i = 0; i < x.length; i++) {
            int j = i + nextInt(x.length - i);
            int t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }

    public void permutate(float[] x) {
        for (int i = 0; i < x.length; i++) {
            int j = i + nextInt(x.length - i);
            float t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }

    public void permutate(double[] x) {
        for (int i = 0; i < x.length; i++) {
            int j = i + nextInt(x.length - i);
            double t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }

    public void permutate(Object[] x) {
        for (int i = 0; i < x.length; i++) {
            int j = i + nextInt(x.length - i);
            Object t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
}
