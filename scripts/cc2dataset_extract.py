#!/usr/bin/env python3
"""Runs cc2dataset's own WAT extraction function on one file and prints what it found and its time.

    scripts/cc2dataset_extract.py FILE.warc.wat.gz

cc2dataset (PyPI, MIT) is LAION's WAT → (image URL, alt) extractor; `extract_documents_from_wat` is
the function its Spark job runs per file (fastwarc to read records, simdjson to parse them). Its
module imports pyspark at the top for the job around that function; the function itself never uses
it, so pyspark (300 MB) is replaced by empty modules here and the function runs unchanged. The file
is read into memory first, as cc2dataset's `process_wat` does, and only the extraction is timed.
Prints one JSON line: {"links": N, "seconds": S}.
"""

import io
import json
import sys
import time
import types

for name in ("pyspark", "pyspark.sql", "pyspark.sql.functions"):
    module = types.ModuleType(name)
    module.SparkContext = module.SparkSession = module.rand = None
    sys.modules[name] = module

from cc2dataset.main import extract_documents_from_wat  # noqa: E402

with open(sys.argv[1], "rb") as f:
    data = io.BytesIO(f.read())
start = time.perf_counter()
links = extract_documents_from_wat(data, "image")
seconds = time.perf_counter() - start
print(json.dumps({"links": len(links), "seconds": round(seconds, 3)}))
