"""Reading a release and counting it: files read as written, the count tables every measure starts from, streamed counts, buckets and hierarchies of values."""
