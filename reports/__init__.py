"""privcert.reports: canonical, signed certificates (arrives with the certificate issue)."""
