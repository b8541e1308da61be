"""The web console in a real, headless Chromium (Debian's chromium and chromedriver, driven by Selenium;
nothing is downloaded): sign up, confirm the address through the mailed link, sign in, preview a corpus
document and find its TCKN and IBAN highlighted and absent from the masked pane, move between findings
with the keyboard, upload three files and watch their jobs complete, reprocess a document, build a
dataset and download it as Parquet (read back with pandas), register a webhook and see its delivery,
create an API key and call the API with it, read the usage, sign out. axe-core checks every page for WCAG 2.1 A and AA violations at 375 and
1440 px wide. Run by tests/api/console.rs against a live server:

    python3 tests/e2e/console.py --base http://127.0.0.1:PORT --outbox DATA_DIR/outbox \
        --document ../shared/corpus/tr/tr_ik_yazisi.docx --more FILE --more FILE --axe .../axe.min.js \
        [--screenshots DIR]
"""

import argparse
import glob
import http.server
import json
import os
import re
import sys
import tempfile
import threading
import time
import urllib.request

import pandas

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

WIDTHS = {"narrow": 375, "wide": 1440}
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


class Receiver(http.server.BaseHTTPRequestHandler):
    """A webhook receiver: keeps every body it is sent, answers 200."""

    received = []

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        Receiver.received.append(json.loads(self.rfile.read(length) or b"{}"))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def receiver():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser(downloads):
    options = webdriver.ChromeOptions()
    options.binary_location = next(
        path for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(path)
    )
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--lang=en-US"):
        options.add_argument(argument)
    options.add_experimental_option(
        "prefs",
        {
            "intl.accept_languages": "en-US,en",
            "download.default_directory": downloads,
            "download.prompt_for_download": False,
        },
    )
    driver_path = next(
        path
        for path in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
        if os.path.exists(path)
    )
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_window_size(WIDTHS["wide"], 1000)
    return driver


class Console:
    def __init__(self, args):
        self.args = args
        self.downloads = tempfile.mkdtemp(prefix="console-downloads-")
        self.driver = browser(self.downloads)
        self.wait = WebDriverWait(self.driver, 30)
        with open(args.axe, encoding="utf-8") as source:
            self.axe = source.read()
        self.checked = []

    def url(self, path):
        return self.args.base.rstrip("/") + path

    def find(self, css):
        return self.wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, css)))

    def visible(self, css):
        return self.wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def text_of(self, css):
        return self.visible(css).text

    def page(self, name):
        """axe-core on the page as it stands, at both widths; a screenshot of each when asked."""
        for width_name, width in WIDTHS.items():
            self.driver.set_window_size(width, 1000)
            time.sleep(0.2)
            self.driver.execute_script(self.axe)
            result = self.driver.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
                ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
                " nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))))"
                ".catch(e => done([{id: 'axe-error', help: String(e), nodes: []}]));",
                AXE_TAGS,
            )
            assert not result, f"axe-core on {name} at {width} px: {json.dumps(result, indent=1)}"
            overflow = self.driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            if overflow > 1:
                wide = self.driver.execute_script(
                    "const w = document.documentElement.clientWidth; return Array.from("
                    "document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > w)"
                    ".slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' +"
                    " Math.round(e.getBoundingClientRect().right))"
                )
                raise AssertionError(f"{name} at {width} px scrolls sideways by {overflow} px: {wide}")
            if self.args.screenshots:
                self.driver.execute_script(
                    "const r = document.getElementById('result');"
                    "if (r) r.scrollIntoView(); else window.scrollTo(0, 0);"
                )
                os.makedirs(self.args.screenshots, exist_ok=True)
                self.driver.save_screenshot(
                    os.path.join(self.args.screenshots, f"console-{name}-{width_name}.png")
                )
        self.driver.set_window_size(WIDTHS["wide"], 1000)
        self.checked.append(name)

    def mailed_link(self, kind, count):
        deadline = time.time() + 30
        while time.time() < deadline:
            mails = sorted(glob.glob(os.path.join(self.args.outbox, f"*{kind}*.eml")), key=os.path.getmtime)
            if len(mails) >= count:
                with open(mails[-1], encoding="utf-8", errors="replace") as mail:
                    text = mail.read().replace("=\n", "")
                match = re.search(r"https?://\S+\?token=[0-9a-f]+", text)
                assert match, f"no link in {mails[-1]}"
                return match.group(0)
            time.sleep(0.1)
        raise AssertionError(f"no {kind} mail in {self.args.outbox}")

    def run(self):
        email, password = "konsol@example.com", "bir-uzun-parola"
        driver = self.driver

        # Sign up, through the console.
        driver.get(self.url("/console#/sign-up"))
        self.visible("#sign-up-form")
        self.page("sign-up")
        self.find("#email").send_keys(email)
        self.find("#password").send_keys(password)
        self.find("#sign-up-form button[type=submit]").click()
        assert email in self.text_of("#sign-up-form-outcome .message.ok")

        # Confirm the address through the mailed link (the page asks before it uses the token).
        driver.get(self.mailed_link("verify_email", 1))
        self.find("#form button[type=submit]").click()
        self.wait.until(lambda d: "confirmed" in d.find_element(By.ID, "outcome").text)

        # Sign in; a wrong password first reads as a sentence.
        driver.get(self.url("/console#/sign-in"))
        self.visible("#sign-in-form")
        self.page("sign-in")
        self.find("#email").send_keys(email)
        self.find("#password").send_keys("not-the-password")
        self.find("#sign-in-form button[type=submit]").click()
        assert "wrong" in self.text_of("#sign-in-form-outcome .message.error")
        self.find("#password").clear()
        self.find("#password").send_keys(password + Keys.ENTER)
        self.visible("#file")
        assert driver.execute_script("return document.cookie") == "", "the session cookie is HttpOnly"
        stored = driver.execute_script("return JSON.stringify(Object.assign({}, localStorage))")
        assert "token" not in stored.lower() and "dsk_" not in stored, stored
        self.page("try")

        # A reload keeps the session (the cookie renews it) without storing a token in the page.
        driver.refresh()
        self.visible("#file")

        # Preview a corpus document: its TCKN and IBAN highlighted, and gone from the masked pane.
        with open(self.args.document + ".pii.json", encoding="utf-8") as planted:
            values = {item["type"]: item["value"] for item in json.load(planted)["pii"]}
        self.find("#file").send_keys(os.path.abspath(self.args.document))
        self.visible("#result")
        marks = {
            mark.get_attribute("data-type"): mark
            for mark in driver.find_elements(By.CSS_SELECTOR, "#original-text mark")
        }
        masked = self.text_of("#masked-text")
        for kind in ("national_id_tr", "iban_tr"):
            assert kind in marks, f"{kind} not highlighted: {sorted(marks)}"
            shown = marks[kind].find_element(By.CSS_SELECTOR, ".value").text
            digits = re.sub(r"\D", "", values[kind])
            assert digits[-6:] in re.sub(r"\D", "", shown), (kind, shown, values[kind])
            assert values[kind] not in masked, f"{kind} left in the masked pane"
            assert digits not in re.sub(r"\D", "", masked.replace("MASKED", "")), kind
        assert "[MASKED_" in masked or masked != self.text_of("#original-text")
        counts = self.text_of("#type-counts")
        assert "NATIONAL_ID_TR" in counts and "IBAN_TR" in counts, counts
        # The keyboard moves between findings, each labelled with its type and confidence.
        self.find("#original-text").send_keys("n")
        focused = driver.switch_to.active_element
        assert focused.tag_name == "mark" and "confidence" in focused.get_attribute("textContent")
        assert self.find("#download-masked").get_attribute("download").endswith(".masked.txt")
        self.page("try-result")

        # Turkish, by the switch.
        driver.execute_script(
            "const s = document.getElementById('language'); s.value = 'tr';"
            "s.dispatchEvent(new Event('change'));"
        )
        self.wait.until(lambda d: d.find_element(By.ID, "sign-out").text == "Çıkış yap")
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "tr"
        self.page("try-tr")

        driver.execute_script(
            "const s = document.getElementById('language'); s.value = 'en';"
            "s.dispatchEvent(new Event('change'));"
        )
        self.wait.until(lambda d: d.find_element(By.ID, "sign-out").text == "Sign out")
        self.work()

        # Sign out: the session ends, and a reload does not bring it back.
        self.find("#sign-out").click()
        self.visible("#sign-in-form")
        driver.refresh()
        self.visible("#sign-in-form")
        print(json.dumps({"pages_checked": self.checked}))


    def go(self, route, ready_css):
        self.driver.find_element(By.CSS_SELECTOR, f'#nav a[href="#/{route}"]').click()
        return self.visible(ready_css)

    def work(self):
        driver = self.driver
        # A webhook first, so that the jobs below are delivered to it.
        hooks = receiver()
        self.go("webhooks", "#webhook-form")
        self.find("#webhook-url").send_keys(f"http://127.0.0.1:{hooks.server_address[1]}/hook")
        self.find("#webhook-form button[type=submit]").click()
        assert "secret" in self.text_of("#webhooks-status .message.ok")
        self.page("webhooks")

        # Three files uploaded at once; the list follows them until they complete.
        self.go("jobs", "#upload-form")
        self.page("jobs")
        files = [os.path.abspath(self.args.document)] + [os.path.abspath(f) for f in self.args.more]
        self.find("#files").send_keys("\n".join(files))
        self.find("#upload-form button[type=submit]").click()
        assert "3 jobs queued" in self.text_of("#jobs-status .message.ok")
        WebDriverWait(driver, 90).until(
            lambda d: len(d.find_elements(By.CSS_SELECTOR, '#jobs-table [data-status="completed"]')) >= 3
        )
        self.page("jobs-done")

        # Documents: the three, and one reprocessed.
        self.go("documents", "#documents-table")
        rows = driver.find_elements(By.CSS_SELECTOR, "#documents-table tbody tr")
        assert len(rows) >= 3, len(rows)
        rows[0].find_element(By.TAG_NAME, "button").click()
        assert "job" in self.text_of("#documents-status .message.ok").lower()
        self.page("documents")

        # A dataset of the three results, downloaded as Parquet and read back.
        self.go("datasets", "#dataset-form")
        self.find("#dataset-name").send_keys("konsol")
        boxes = driver.find_elements(By.CSS_SELECTOR, "#executions-choice input[type=checkbox]")
        assert len(boxes) >= 3, len(boxes)
        for box in boxes[:3]:
            box.click()
        self.find("#dataset-form button[type=submit]").click()
        self.visible("#datasets-status .message.ok")
        button = WebDriverWait(driver, 90).until(
            lambda d: d.find_element(By.CSS_SELECTOR, '#datasets-table button[data-format="parquet"]')
        )
        self.page("datasets")
        button.click()
        deadline = time.time() + 30
        parquet = []
        while time.time() < deadline and not parquet:
            parquet = [f for f in glob.glob(os.path.join(self.downloads, "*.parquet"))]
            time.sleep(0.2)
        assert parquet, os.listdir(self.downloads)
        time.sleep(0.5)
        frame = pandas.read_parquet(parquet[0])
        assert len(frame) >= 3, frame
        planted = json.load(open(self.args.document + ".pii.json", encoding="utf-8"))["pii"]
        text = frame.to_csv()
        for item in planted:
            if item["type"] in ("national_id_tr", "iban_tr"):
                assert item["value"] not in text, f"{item['type']} in the Parquet export"

        # The webhook's delivery log shows what the jobs sent it.
        self.go("webhooks", "#webhook-form")
        WebDriverWait(driver, 60).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, '.deliveries [data-status="delivered"]')
            or (d.find_element(By.CSS_SELECTOR, ".card button").click() and False)
        )
        assert Receiver.received, "the receiver got nothing"

        # An API key, shown once, that works.
        self.go("keys", "#key-form")
        self.find("#key-name").send_keys("konsol")
        self.find("#key-form button[type=submit]").click()
        key = self.text_of("#new-key")
        assert key.startswith("dsk_"), key
        request = urllib.request.Request(self.url("/v1/usage"), headers={"X-API-KEY": key})
        with urllib.request.urlopen(request) as answer:
            assert answer.status == 200
        self.page("keys")

        self.go("usage", "#usage-summary")
        assert int(self.text_of("#credits-remaining")) >= 0
        self.page("usage")
        hooks.shutdown()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--outbox", required=True)
    parser.add_argument("--document", required=True)
    parser.add_argument("--more", action="append", default=[])
    parser.add_argument("--axe", required=True)
    parser.add_argument("--screenshots")
    args = parser.parse_args()
    console = Console(args)
    try:
        console.run()
    except Exception:
        console.driver.save_screenshot(os.path.join(os.path.dirname(args.outbox), "console-failure.png"))
        print(console.driver.page_source[:4000], file=sys.stderr)
        raise
    finally:
        console.driver.quit()


if __name__ == "__main__":
    main()
