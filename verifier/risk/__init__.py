"""Re-identification risk as statistical offices measure it, from the class sizes.

Every model here except SUDA is a function of the *class-size histogram* (how many
classes of the release have each size, :mod:`verifier.risk.histogram`) and, where the
model is about a population, of the sampling fraction or a population table; so each
costs O(#distinct class sizes) after the group-by. SUDA (:mod:`verifier.risk.suda`)
needs the classes' quasi-identifier values.

* :mod:`verifier.risk.sample`: sample uniqueness, marketer and journalist risk.
* :mod:`verifier.risk.population`: population uniqueness (Pitman, Zayatz, SNB and the
  decision rule of Dankar et al.).
* :mod:`verifier.risk.individual`: Benedetti-Franconi individual risk.
* :mod:`verifier.risk.population_table`: a population table, k-map and δ-presence.
* :mod:`verifier.risk.distribution`: the records per band of prosecutor risk (ARX's bands).
* :mod:`verifier.risk.suda`: SUDA2 minimal sample uniques, SUDA and DIS-SUDA scores.
"""
