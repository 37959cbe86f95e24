"""Smile 1.3.1's random forest as ARX calls it, re-implemented to trace ARX's classification figures.

ARX's ``MultiClassRandomForest`` gives Smile's ``RandomForest`` every feature as the
integer code of its value in ARX's dictionary, all attributes numeric (``Attribute[]``
``null``), with ARX's defaults: 500 trees, at most 100 leaves, nodes of 5 records
(``nodeSize``), ``floor(sqrt(features))`` attributes tried per node, bootstrap samples
drawn class by class, the Gini rule. This module follows Smile's source at its tag
v1.3.1 (``smile.classification.RandomForest``, ``DecisionTree``; the byte code of
ARX's ``smile-1.3.1-java7.jar`` has the same tests):

* the forest sorts each attribute once with Smile's ``QuickSort`` (:func:`quicksort_order`,
  the same order of tied values); each tree draws its bootstrap sample class by class,
  ``nj`` draws of ``Math.randomInt(nj)`` among the class's ``nj`` training records, from
  Smile's generator (:class:`SmileRandom`), which for an ``nj`` with a large power of 2 in
  it reaches only a fixed fraction of the records, the same in every tree;
* a tree grows best first: the node whose best split has the highest gain
  ``impurity − (tc/n)·impurity_true − (fc/n)·impurity_false`` is split next, until 100
  leaves; a node tries ``mtry`` attributes (``Math.permutate``), and a threshold between two
  successive values is tried only where the two records met there in the sort order differ
  in value **and in class** (``y[i] == prevy`` skips it): a shortcut that is exact when
  every value is distinct and skips most thresholds when thousands of records share each
  value; sides of fewer than ``nodeSize`` records are not split off;
* a leaf predicts its records' most frequent class; the forest predicts the class most
  trees vote for.

Two switches undo Smile's two quirks: ``sound_generator=True`` draws every ``nextInt(n)``
uniformly on all ``n`` values, ``all_thresholds=True`` tries every threshold. Five more
each take one step towards scikit-learn's forest (``RandomForestClassifier`` with
``max_leaf_nodes``, its ``BestFirstTreeBuilder`` and ``BestSplitter``, version 1.9):
``weighted_best_first=True`` ranks the nodes by the gain times the node's records,
``draw_until_split=True`` does not count an attribute constant in the node among the
``mtry`` drawn (scikit-learn draws further), ``distinct_leaf_size=True`` counts the
``nodeSize`` records of a side as distinct records rather than bootstrap draws,
``overall_bootstrap=True`` draws the bootstrap sample among all records rather than
class by class, ``soft_votes=True`` averages the trees' leaf class shares rather than
counting their votes. Smile's
generator is seeded by ``SecureRandom`` in each of its threads (ARX does not seed it); its
24-bit doubles are drawn here from numpy's generator, so the re-implementation's accuracy
is Smile's up to the draws (a single tree grown on all records, where nothing is drawn,
is Smile's exactly).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Split:
    """A node's best split: on ``feature`` at ``value`` (records ``<= value`` go true), its gain."""

    feature: int
    value: float
    gain: float


def smile_next_int(draws: np.ndarray, n: int) -> np.ndarray:
    """Smile 1.3.1's ``nextInt(n)`` (``smile.math.random.UniversalGenerator``) of each of its doubles ``draws / 2^24``.

    Marsaglia's universal generator returns doubles with 24 bits, multiples of ``2^-24``;
    ``nextInt()`` scales one to ``floor((2^31 − 1)(2u − 1))``, ``next(31)`` is that
    ``>>> 1``, and ``nextInt(n)`` is ``next(31) mod n`` (``(n·next(31)) >> 31`` for a power of
    2). The 31 bits are ``128t − 1`` or ``2^31 − 128s``, so for an even ``n`` that is not a
    power of 2 only ``n / 2^(a−1)`` of the ``n`` values come out (``2^a`` the largest power
    of 2 dividing ``n``): 750 of 6000, 6 of 12.
    """
    t = draws.astype(np.int64) - 2 ** 23
    value = np.where(t > 0, 256 * t - 1, 256 * t + (t == -2 ** 23))  # floor((2^31 - 1)(2u - 1))
    bits = (value % 2 ** 32) >> 1  # next(31): nextInt() >>> 1
    found: np.ndarray = (n * bits) >> 31 if n & (n - 1) == 0 else bits % n
    return found


class SmileRandom:
    """Smile's ``smile.math.Random``, the draws of ``RandomForest``: 24-bit doubles from numpy's generator.

    ``sound=True``: ``nextInt(n)`` uniform on all ``n`` values instead of :func:`smile_next_int`.
    """

    def __init__(self, seed: int, *, sound: bool = False) -> None:
        self._rng, self._sound = np.random.default_rng(seed), sound

    def next_int(self, n: int, size: int) -> np.ndarray:
        """``size`` draws of ``nextInt(n)``."""
        if self._sound:
            drawn: np.ndarray = self._rng.integers(0, n, size)
            return drawn
        return smile_next_int(self._rng.integers(0, 2 ** 24, size), n)

    def permutate(self, n: int) -> np.ndarray:
        """``Math.permutate`` of ``0..n−1``: each position ``i`` swapped with ``i + nextInt(n − i)``."""
        order = np.arange(n)
        for i in range(n):
            j = i + int(self.next_int(n - i, 1)[0])
            order[i], order[j] = order[j], order[i]
        return order



def quicksort_order(values: np.ndarray) -> np.ndarray:
    """The record order ``smile.sort.QuickSort.sort(double[])`` gives (Press et al. 1992's quicksort, §8.2).

    Median-of-three partitioning, insertion sort below 7 records; the order of tied values
    is the algorithm's, which the threshold shortcut of the trees depends on.
    """
    arr, brr = [float(v) for v in values], list(range(len(values)))
    stack: list[int] = []
    left, right = 0, len(arr) - 1
    while True:
        if right - left < 7:
            for j in range(left + 1, right + 1):
                a, b = arr[j], brr[j]
                i = j - 1
                while i >= left and arr[i] > a:
                    arr[i + 1], brr[i + 1] = arr[i], brr[i]
                    i -= 1
                arr[i + 1], brr[i + 1] = a, b
            if not stack:
                break
            right, left = stack.pop(), stack.pop()
        else:
            k = (left + right) >> 1
            arr[k], arr[left + 1] = arr[left + 1], arr[k]
            brr[k], brr[left + 1] = brr[left + 1], brr[k]
            for one, two in ((left, right), (left + 1, right), (left, left + 1)):
                if arr[one] > arr[two]:
                    arr[one], arr[two] = arr[two], arr[one]
                    brr[one], brr[two] = brr[two], brr[one]
            i, j = left + 1, right
            a, b = arr[left + 1], brr[left + 1]
            while True:
                i += 1
                while arr[i] < a:
                    i += 1
                j -= 1
                while arr[j] > a:
                    j -= 1
                if j < i:
                    break
                arr[i], arr[j] = arr[j], arr[i]
                brr[i], brr[j] = brr[j], brr[i]
            arr[left + 1], arr[j] = arr[j], a
            brr[left + 1], brr[j] = brr[j], b
            if right - i + 1 >= j - left:
                stack += [i, right]
                right = j - 1
            else:
                stack += [left, j - 1]
                left = i
    return np.asarray(brr)


def _gini(counts: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Gini impurity ``1 − Σ p²`` of each row of class counts."""
    shares = counts / totals[:, None]
    found: np.ndarray = 1.0 - np.sum(shares * shares, axis=1)
    return found


class SmileTree:
    """One of Smile's trees (``DecisionTree`` as ``RandomForest`` grows it) on bootstrap weights ``samples``."""

    def __init__(self, x: np.ndarray, y: np.ndarray, classes: int, order: list[np.ndarray], samples: np.ndarray,
                 rng: SmileRandom, *, max_leaves: int = 100, node_size: int = 5, mtry: int = 2,
                 all_thresholds: bool = False, weighted_best_first: bool = False, draw_until_split: bool = False,
                 distinct_leaf_size: bool = False) -> None:
        self._x, self._y, self._k, self._order, self._rng = x, y, classes, order, rng
        self._node_size, self._mtry, self._all = node_size, mtry, all_thresholds
        self._weighted, self._until, self._distinct = weighted_best_first, draw_until_split, distinct_leaf_size
        # nodes: feature (-1 for a leaf), value, true child, false child, output
        self.feature: list[int] = []
        self.value: list[float] = []
        self.true_child: list[int] = []
        self.false_child: list[int] = []
        self.output: list[int] = []
        self.shares: list[np.ndarray] = []  # each node's class shares of its bootstrap records
        root = self._node(samples)
        queue: list[tuple[float, int, Split, np.ndarray]] = []
        self._push(queue, root, samples)
        for _ in range(1, max_leaves):
            if not queue:
                break
            _, node, split, weights = heapq.heappop(queue)
            goes_true = x[:, split.feature] <= split.value
            true_weights, false_weights = np.where(goes_true, weights, 0), np.where(goes_true, 0, weights)
            self.feature[node], self.value[node] = split.feature, split.value
            self.true_child[node], self.false_child[node] = self._node(true_weights), self._node(false_weights)
            for child, child_weights in ((self.true_child[node], true_weights), (self.false_child[node], false_weights)):
                if child_weights.sum() > node_size:
                    self._push(queue, child, child_weights)

    def _node(self, weights: np.ndarray) -> int:
        """A leaf of the records of bootstrap weights ``weights``: their most frequent class (the first of ties)."""
        count = np.bincount(self._y, weights=weights, minlength=self._k)
        self.feature.append(-1)
        self.value.append(0.0)
        self.true_child.append(-1)
        self.false_child.append(-1)
        self.output.append(int(np.argmax(count)))
        self.shares.append(count / count.sum())
        return len(self.output) - 1

    def _push(self, queue: list[tuple[float, int, Split, np.ndarray]], node: int, weights: np.ndarray) -> None:
        split = self._best_split(weights)
        if split is not None:
            heapq.heappush(queue, (-split.gain * (weights.sum() if self._weighted else 1.0), node, split, weights))

    def _best_split(self, weights: np.ndarray) -> Split | None:
        """``TrainNode.findBestSplit()``: the best of ``mtry`` attributes drawn afresh, or None (a leaf)."""
        inside = weights > 0
        if np.unique(self._y[inside]).size == 1:
            return None
        n = int(weights.sum())
        if n <= self._node_size or (self._distinct and int(inside.sum()) < 2 * self._node_size):
            return None
        count = np.bincount(self._y, weights=weights, minlength=self._k)
        impurity = float(_gini(count[None, :], np.array([float(n)]))[0])
        best: Split | None = None
        tried = 0
        for feature in self._rng.permutate(self._x.shape[1]):
            if tried == self._mtry:
                break
            if self._until and np.ptp(self._x[inside, feature]) == 0:
                continue  # scikit-learn's splitter draws another attribute in place of a constant one
            tried += 1
            found = self._best_threshold(int(feature), weights, inside, n, count, impurity)
            if found is not None and found.gain > (best.gain if best is not None else 0.0):
                best = found
        return best

    def _best_threshold(self, feature: int, weights: np.ndarray, inside: np.ndarray, n: int, count: np.ndarray,
                        impurity: float) -> Split | None:
        """``findBestSplit(n, count, falseCount, impurity, j)`` on a numeric attribute."""
        rows = self._order[feature][inside[self._order[feature]]]
        values, labels, w = self._x[rows, feature], self._y[rows], weights[rows]
        true_counts = np.cumsum(np.eye(self._k)[labels] * w[:, None], axis=0)[:-1]  # the records before each one
        tried = values[1:] != values[:-1]
        if not self._all:
            tried &= labels[1:] != labels[:-1]
        tc = true_counts.sum(axis=1)
        if self._distinct:
            before = np.arange(1, labels.size)
            tried &= (before >= self._node_size) & (labels.size - before >= self._node_size)
        else:
            tried &= (tc >= self._node_size) & (n - tc >= self._node_size)
        if not tried.any():
            return None
        at = np.flatnonzero(tried)
        true_counts, tc = true_counts[at], tc[at]
        false_counts = count[None, :] - true_counts
        gains = impurity - tc / n * _gini(true_counts, tc) - (n - tc) / n * _gini(false_counts, n - tc)
        best = int(np.argmax(gains))
        if gains[best] <= 0:
            return None
        i = at[best] + 1
        return Split(feature, (values[i] + values[i - 1]) / 2, float(gains[best]))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The class of each row of ``x``."""
        found: np.ndarray = np.asarray(self.output)[self.leaves(x)]
        return found

    def predict_shares(self, x: np.ndarray) -> np.ndarray:
        """The class shares of the leaf each row of ``x`` reaches (scikit-learn's ``predict_proba`` of a tree)."""
        found: np.ndarray = np.asarray(self.shares)[self.leaves(x)]
        return found

    def leaves(self, x: np.ndarray) -> np.ndarray:
        """The leaf each row of ``x`` reaches."""
        node = np.zeros(len(x), dtype=int)
        feature = np.asarray(self.feature)
        value, true_child, false_child = np.asarray(self.value), np.asarray(self.true_child), np.asarray(self.false_child)
        while (feature[node] >= 0).any():
            inner = feature[node] >= 0
            here = node[inner]
            goes_true = x[np.flatnonzero(inner), feature[here]] <= value[here]
            node[inner] = np.where(goes_true, true_child[here], false_child[here])
        return node


def bootstrap(y: np.ndarray, classes: int, rng: SmileRandom, *, overall: bool = False) -> np.ndarray:
    """A tree's bootstrap weights: Smile's, ``nj`` draws of ``Math.randomInt(nj)`` among each class's ``nj`` records.

    ``overall=True``: ``n`` draws among all ``n`` records (scikit-learn's), so a class's draws vary from tree to tree.
    """
    members = [np.arange(len(y))] if overall else [np.flatnonzero(y == label) for label in range(classes)]
    samples = np.zeros(len(y))
    for rows in members:
        np.add.at(samples, rows[rng.next_int(rows.size, rows.size)], 1)
    return samples


def smile_forest_predict(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, seed: int, *, trees: int = 500,
                         all_thresholds: bool = False, sound_generator: bool = False,
                         weighted_best_first: bool = False, draw_until_split: bool = False,
                         distinct_leaf_size: bool = False, overall_bootstrap: bool = False,
                         soft_votes: bool = False) -> np.ndarray:
    """Smile's ``RandomForest`` trained as ARX trains it (classes ``0..k−1``), its majority vote on ``x_test``.

    The switches are the module's (its docstring); ``soft_votes`` predicts the class of the highest mean share.
    """
    rng = SmileRandom(seed, sound=sound_generator)
    classes = int(y_train.max()) + 1
    mtry = int(np.floor(np.sqrt(x_train.shape[1])))
    # Smile sorts each attribute once for the forest (the trees' bootstrap weights pick their records from it)
    order = [quicksort_order(x_train[:, j]) for j in range(x_train.shape[1])]
    votes = np.zeros((len(x_test), classes))
    for _ in range(trees):
        samples = bootstrap(y_train, classes, rng, overall=overall_bootstrap)
        tree = SmileTree(x_train, y_train, classes, order, samples, rng, mtry=mtry, all_thresholds=all_thresholds,
                         weighted_best_first=weighted_best_first, draw_until_split=draw_until_split,
                         distinct_leaf_size=distinct_leaf_size)
        if soft_votes:
            votes += tree.predict_shares(x_test)
        else:
            votes[np.arange(len(x_test)), tree.predict(x_test)] += 1
    found: np.ndarray = np.argmax(votes, axis=1)
    return found
