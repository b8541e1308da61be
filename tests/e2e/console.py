"""The web console in a real, headless Chromium (Debian's chromium and chromedriver, driven by Selenium;
nothing is downloaded): sign up, confirm the address through the mailed link, sign in, preview a corpus
document and find its TCKN and IBAN highlighted and absent from the masked pane, move between findings
with the keyboard, upload three files and watch their jobs complete, reprocess a document, build a
dataset and download it as Parquet (read back with pandas), register a webhook and see its delivery,
create an API key and call the API with it, read the usage; filter documents and results on the server;
add an S3 connector on moto, test its connection, schedule it and run it; change the privacy policy and
the retention; invite a member, who signs up and joins through the mailed invitation; answer a
data-subject request (search, access copy, erasure); sign out. axe-core checks every page for WCAG 2.1 A and AA violations at 375 and
1440 px wide. Run by tests/api/console.rs against a live server:

    python3 tests/e2e/console.py --base http://127.0.0.1:PORT --outbox DATA_DIR/outbox \
        --document ../shared/corpus/tr/tr_ik_yazisi.docx --more FILE --more FILE --axe .../axe.min.js \
        --s3-endpoint http://127.0.0.1:PORT --s3-bucket BUCKET --s3-secret SECRET [--screenshots DIR]
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
OWNER = "konsol@example.com"
INVITED = "ekip@example.com"
INVITED_PASSWORD = "ekibin-parolasi"
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
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
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

    def page(self, name, show=None):
        """axe-core on the page as it stands, at both widths; a screenshot of each when asked (scrolled
        to the element `show` when given)."""
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
                    "const r = document.querySelector(arguments[0] || '#result');"
                    "if (r) r.scrollIntoView(); else window.scrollTo(0, 0);",
                    show,
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
        email, password = OWNER, "bir-uzun-parola"
        driver = self.driver

        # The API reference renders its operations under its content security policy, which refuses
        # nothing it needs.
        driver.get(self.url("/docs/"))
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock"))
        refused = [
            entry["message"]
            for entry in driver.get_log("browser")
            if "Content Security Policy" in entry["message"]
        ]
        assert not refused, refused

        # Sign up, through the console.
        driver.get(self.url("/console#/sign-up"))
        self.visible("#sign-up-form")
        self.page("sign-up")
        self.find("#email").send_keys(email)
        self.find("#password").send_keys(password)
        self.find("#sign-up-form button[type=submit]").click()
        assert email in self.text_of("#sign-up-form-outcome .message.ok")

        # Confirm the address through the mailed link: it leads to the console's page, which asks
        # before it uses the token.
        driver.get(self.mailed_link("verify_email", 1))
        self.visible("#verify-form")
        assert "/console#/verify-email?token=" in driver.current_url, driver.current_url
        self.page("verify-email")
        self.find("#verify-form button[type=submit]").click()
        assert "confirmed" in self.text_of("#verify-form-outcome .message.ok")

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
        # The masked file in its own format: the download happens, and the status names it.
        self.find("#download-file").click()
        WebDriverWait(driver, 60).until(lambda d: self.text_of("#download-file-status").strip())
        extension = os.path.splitext(self.args.document)[1]
        assert self.text_of("#download-file-status").endswith(f"{extension} is downloaded."), \
            self.text_of("#download-file-status")
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

        self.join_the_team()
        print(json.dumps({"pages_checked": self.checked}))

    def join_the_team(self):
        """The person invited on the team page signs up, confirms, and joins through the mailed link."""
        driver = self.driver
        driver.get(self.url("/console#/sign-up"))
        self.visible("#sign-up-form")
        self.find("#email").send_keys(INVITED)
        self.find("#password").send_keys(INVITED_PASSWORD)
        self.find("#sign-up-form button[type=submit]").click()
        self.visible("#sign-up-form-outcome .message.ok")
        driver.get(self.mailed_link("verify_email", 2))
        self.find("#verify-form button[type=submit]").click()
        self.visible("#verify-form-outcome .message.ok")

        driver.get(self.mailed_link("invitation", 1))
        self.visible("#accept-form")
        assert "/console#/accept-invitation?token=" in driver.current_url, driver.current_url
        self.page("accept-invitation")
        self.find("#email").send_keys(INVITED)
        self.find("#password").send_keys(INVITED_PASSWORD)
        self.find("#accept-form button[type=submit]").click()
        assert "member" in self.text_of("#accept-form-outcome .message.ok")
        # In the team now: its members are the owner and the newcomer; a member invites no one.
        self.go("team", "#members-table")
        emails = self.text_of("#members-table")
        assert OWNER in emails and INVITED in emails, emails
        assert not driver.find_elements(By.ID, "invite-form")
        self.find("#sign-out").click()
        self.visible("#sign-in-form")


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
        # The server filters: a part of one name, in other letters' case, finds that one document.
        part = os.path.basename(self.args.document)[3:10].upper()
        self.find("#documents-filters-filename").send_keys(part + Keys.ENTER)
        WebDriverWait(driver, 30).until(
            lambda d: "filename=" in d.current_url
            and len(d.find_elements(By.CSS_SELECTOR, "#documents-table tbody tr")) == 1
        )
        assert os.path.basename(self.args.document) in self.text_of("#documents-table")

        # Results: only the masked ones, through the filter.
        self.go("executions", "#executions-filters")
        driver.execute_script(
            "const s = document.getElementById('executions-filters-masked'); s.value = 'true';"
        )
        self.find("#executions-filters button[type=submit]").click()
        WebDriverWait(driver, 30).until(
            lambda d: "masked=true" in d.current_url
            and len(d.find_elements(By.CSS_SELECTOR, "#executions-table tbody tr")) >= 3
        )
        self.page("executions")
        # A masked result's file in its own format, from the results page.
        driver.find_element(By.CSS_SELECTOR, "#executions-table button[id^=download-file-]").click()
        WebDriverWait(driver, 60).until(lambda d: self.text_of("#executions-status").strip())
        assert self.text_of("#executions-status").endswith("is downloaded."), self.text_of("#executions-status")

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

        self.connectors()
        self.settings()
        self.subjects()

    def connectors(self):
        """An S3 connector on moto: its connection test, a schedule, a run that reads the bucket."""
        driver = self.driver
        self.go("connectors", "#connector-form")
        self.find("#connector-name").send_keys("gelen kutusu")
        for field, value in (
            ("bucket", self.args.s3_bucket),
            ("region", "us-east-1"),
            ("aws_access_key_id", "AKIAMOTOTEST"),
            ("aws_secret_access_key", self.args.s3_secret),
            ("endpoint", self.args.s3_endpoint),
        ):
            self.find(f"#connector-{field}").send_keys(value)
        self.find("#connector-form button[type=submit]").click()
        self.visible("#connectors-status .message.ok")
        self.visible("#connectors-list .card button.test").click()
        tested = self.text_of("#connectors-list .tested .message.ok")
        assert "Objects seen: 1," in tested, tested
        self.page("connectors", show="#connectors-list")
        cron = self.find("#connectors-list .schedule-form input[name=cron]")
        cron.send_keys("0 3 * * *")
        self.find("#connectors-list .schedule-form button[type=submit]").click()
        run_now = WebDriverWait(driver, 30).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "#connectors-list .schedule .actions button")
        )
        run_now.click()
        WebDriverWait(driver, 30).until(
            lambda d: "New documents queued: 1." in d.find_element(By.ID, "connectors-status").text
        )
        WebDriverWait(driver, 30).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, '#connectors-list .runs [data-status="succeeded"]')
        )
        self.page("connectors-run", show="#connectors-list")

    def settings(self):
        """The privacy policy, retention and the team's invitation."""
        driver = self.driver
        self.go("privacy", "#privacy-form")
        assert self.text_of("#policy-version") == "0"
        driver.execute_script(
            "const s = document.getElementById('default-operator'); s.value = 'numbered';"
        )
        self.find("#privacy-form button[type=submit]").click()
        assert "version 1" in self.text_of("#privacy-status .message.ok")
        self.page("privacy")
        driver.refresh()
        self.visible("#privacy-form")
        assert self.find("#default-operator").get_attribute("value") == "numbered"

        self.go("retention", "#retention-form")
        self.find("#originals-days").clear()
        self.find("#originals-days").send_keys("7")
        self.find("#retention-form button[type=submit]").click()
        self.visible("#retention-status .message.ok")
        assert "7" in self.text_of("#originals-in-force")
        self.page("retention")

        self.go("team", "#invite-form")
        self.find("#invite-email").send_keys(INVITED)
        self.find("#invite-form button[type=submit]").click()
        assert INVITED in self.text_of("#team-status .message.ok")
        assert OWNER in self.text_of("#members-table")
        self.page("team")

    def subjects(self):
        """A data-subject request for the planted national id: found, its access copy, erased."""
        driver = self.driver
        planted = json.load(open(self.args.document + ".pii.json", encoding="utf-8"))["pii"]
        national_id = next(item["value"] for item in planted if item["type"] == "national_id_tr")
        self.go("subjects", "#subject-form")
        self.find("#subject-values").send_keys(national_id)
        self.find("#subject-form button[type=submit]").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "subject-documents"))
        assert int(self.text_of("#subject-documents")) >= 1
        self.page("subjects", show="#subject-found")
        self.find("#subject-access").click()
        deadline = time.time() + 30
        while time.time() < deadline and not glob.glob(os.path.join(self.downloads, "subject-access*.zip")):
            time.sleep(0.2)
        assert glob.glob(os.path.join(self.downloads, "subject-access*.zip")), os.listdir(self.downloads)
        self.find("#subject-erase").click()
        WebDriverWait(driver, 10).until(ready.alert_is_present())
        driver.switch_to.alert.accept()
        assert self.text_of("#receipt-id")
        self.find("#subject-form button[type=submit]").click()
        WebDriverWait(driver, 30).until(
            lambda d: d.find_elements(By.ID, "subject-documents")
            and d.find_element(By.ID, "subject-documents").text == "0"
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--outbox", required=True)
    parser.add_argument("--document", required=True)
    parser.add_argument("--more", action="append", default=[])
    parser.add_argument("--axe", required=True)
    parser.add_argument("--s3-endpoint", required=True)
    parser.add_argument("--s3-bucket", required=True)
    parser.add_argument("--s3-secret", required=True)
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
