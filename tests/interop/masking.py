"""What `docsieve mask` finds in texts, for the recall checks (world_recall.py, prose_recall.py)."""

import json
import os
import subprocess
import tempfile


def findings(binary, texts):
    """The findings of `docsieve mask --no-mask --json` in each text, in the texts' order."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for index, text in enumerate(texts):
            path = os.path.join(folder, f"doc{index:05d}.txt")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            paths.append(path)
        out = subprocess.run([binary, "mask", "--no-mask", "--json", *paths], check=True, capture_output=True)
    results = [json.loads(line) for line in out.stdout.decode().splitlines() if line.strip()]
    if len(paths) == 1:
        return [results[0]["findings"]]
    by_file = {result["file"]: result["findings"] for result in results}
    return [by_file[path] for path in paths]
