#!/usr/bin/python3
"""Converts documents with LibreOffice through UNO (Debian's python3-uno, under Debian's own Python):
`uno_convert.py JOBS.json`, where JOBS.json lists [source, target, filter name, password or null].
A password makes LibreOffice encrypt the target as its format does (Word 97 RC4, ODF AES). Used by
make_office.py only, to make test documents once; never by the tests or CI."""
import json
import os
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    item = PropertyValue()
    item.Name = name
    item.Value = value
    return item


def main():
    with open(sys.argv[1], encoding="utf-8") as listed:
        jobs = json.load(listed)
    profile = tempfile.mkdtemp(prefix="lo-profile-")
    port = 2002 + os.getpid() % 1000
    office = subprocess.Popen([
        "soffice", "--headless", "--invisible", "--norestore", "--nologo", "--nodefault",
        f"-env:UserInstallation=file://{profile}",
        f"--accept=socket,host=127.0.0.1,port={port};urp;StarOffice.ComponentContext",
    ])
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext(
            "com.sun.star.bridge.UnoUrlResolver", local)
        for _ in range(120):
            try:
                context = resolver.resolve(
                    f"uno:socket,host=127.0.0.1,port={port};urp;StarOffice.ComponentContext")
                break
            except Exception:
                time.sleep(0.5)
        else:
            raise SystemExit("LibreOffice did not start")
        desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        for source, target, filter_name, password in jobs:
            document = desktop.loadComponentFromURL(
                uno.systemPathToFileUrl(os.path.abspath(source)), "_blank", 0, (prop("Hidden", True),))
            arguments = [prop("FilterName", filter_name), prop("Overwrite", True)]
            if password:
                arguments.append(prop("Password", password))
            document.storeToURL(uno.systemPathToFileUrl(os.path.abspath(target)), tuple(arguments))
            document.close(True)
            print("wrote", target)
        try:
            desktop.terminate()
        except Exception:
            pass
    finally:
        office.wait(timeout=60)


if __name__ == "__main__":
    main()
