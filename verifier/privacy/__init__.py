"""The privacy models' numbers: exact levels of k-anonymity, l-diversity, t-closeness, likeness and multiplicative t-closeness from the count tables."""
