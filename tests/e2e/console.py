"""The web console in a real, headless Chromium (Debian's chromium and chromedriver, driven by Selenium;
nothing is downloaded): sign up, confirm the address through the mailed link, sign in, preview a corpus
document and find its TCKN and IBAN highlighted and absent from the masked pane, move between findings
with the keyboard, sign out. axe-core checks every page for WCAG 2.1 A and AA violations at 375 and
1440 px wide. Run by tests/api/console.rs against a live server:

    python3 tests/e2e/console.py --base http://127.0.0.1:PORT --outbox DATA_DIR/outbox \
        --document ../shared/corpus/tr/tr_ik_yazisi.docx --axe .../axe.min.js [--screenshots DIR]
"""

import argparse
import glob
import json
import os
import re
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

WIDTHS = {"narrow": 375, "wide": 1440}
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = next(
        path for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(path)
    )
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--lang=en-US"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})
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
        self.driver = browser()
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

        # Sign out: the session ends, and a reload does not bring it back.
        self.find("#sign-out").click()
        self.visible("#sign-in-form")
        driver.refresh()
        self.visible("#sign-in-form")
        print(json.dumps({"pages_checked": self.checked}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--outbox", required=True)
    parser.add_argument("--document", required=True)
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
