// "Try it": drop a file; docsieve's preview reads it twice (as written, and masked by the tenant's
// policy); the page shows the text with each finding highlighted by type beside the masked text, the
// counts per type, the quality grade and its warnings, and offers the masked text for download, and the
// masked file in its own format. The file goes nowhere but to POST /v1/data-process/preview (and
// /v1/data-process/redact when its masked file is asked for).

import { api, download as appDownload, failure, h, page, t } from "/console/assets/app.js";

/** The colour class of a type (`kind-0` to `kind-7` in app.css): a type keeps its colour everywhere. */
export function colourOf(type) {
  let hash = 0;
  for (const char of type) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
  return `kind-${hash % 8}`;
}

/** The type's label: its name, readable. */
function label(type) {
  return type.toUpperCase();
}

async function preview(file, masked) {
  const form = new FormData();
  form.append("file", file, file.name);
  return api("POST", `/v1/data-process/preview?masked=${masked}`, { form });
}

/** The text with a focusable <mark> per finding (offsets in characters, as the API gives them). */
function highlighted(text, findings) {
  const characters = Array.from(text);
  const nodes = [];
  let at = 0;
  const sorted = findings
    .filter((f) => f.char_end <= characters.length && f.char_start < f.char_end)
    .sort((a, b) => a.char_start - b.char_start);
  sorted.forEach((finding, index) => {
    if (finding.char_start < at) return;
    nodes.push(characters.slice(at, finding.char_start).join(""));
    const confidence = Math.round(finding.confidence * 100);
    // Read out as "Finding 3: IBAN_TR, confidence 99 %: <value>"; the visible tag is for the eye.
    nodes.push(h("mark", {
      tabindex: "0",
      class: colourOf(finding.type),
      title: t("finding_hover", { type: label(finding.type), confidence }),
      dataset: { type: finding.type, confidence: String(finding.confidence) },
    },
    h("span", { class: "visually-hidden" }, t("finding_label", { n: index + 1, type: label(finding.type), confidence }) + ": "),
    h("span", { class: "value" }, characters.slice(finding.char_start, finding.char_end).join("")),
    h("span", { class: "tag", "aria-hidden": "true" }, label(finding.type))));
    at = finding.char_end;
  });
  nodes.push(characters.slice(at).join(""));
  return nodes;
}

function warningsOf(quality) {
  const signals = (quality && quality.signals) || {};
  const warnings = [];
  if (signals.empty_pages) warnings.push(t("warn_empty_pages", { n: signals.empty_pages }));
  if (signals.replacement_characters) warnings.push(t("warn_replacement", { n: signals.replacement_characters }));
  if (signals.decoding_errors) warnings.push(t("warn_decoding"));
  if (typeof signals.ocr_confidence === "number" && signals.ocr_confidence < 0.7) {
    warnings.push(t("warn_ocr", { n: Math.round(signals.ocr_confidence * 100) }));
  }
  for (const part of signals.damaged_parts || []) warnings.push(t("warn_damaged", { part }));
  return warnings;
}

/** The file itself, masked in its own format (`POST /v1/data-process/redact`). */
function downloadFile(file) {
  const status = h("span", { id: "download-file-status", role: "status", "aria-live": "polite" });
  const form = () => {
    const body = new FormData();
    body.append("file", file, file.name);
    return body;
  };
  return h("span", {},
    h("button", { type: "button", class: "button", id: "download-file",
      onclick: () => appDownload("/v1/data-process/redact", null, status, undefined, form()) },
      t("download_file")),
    status);
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const stem = name.replace(/\.[^.]*$/, "") || "document";
  return h("a", { class: "button", href: url, download: `${stem}.masked.txt`, id: "download-masked" },
    t("download_masked"));
}

function result(file, plain, masked) {
  const findings = plain.pii.findings;
  const summary = plain.pii.pii_type_summary;
  const quality = plain.quality || {};
  const section = h("section", { id: "result", "aria-labelledby": "result-title" });
  section.append(h("h2", { id: "result-title" }, t("result_title", { name: file.name })));
  section.append(h("dl", { class: "summary" },
    h("div", {}, h("dt", {}, t("findings")), h("dd", { id: "finding-count" }, String(plain.pii.pii_count))),
    h("div", {}, h("dt", {}, t("quality")), h("dd", { id: "quality-grade" }, quality.grade || "–")),
    h("div", {}, h("dt", {}, t("language")), h("dd", {}, plain.detected_language || "und")),
    h("div", {}, h("dt", {}, t("format")), h("dd", {}, (plain.metadata && plain.metadata.format) || "")),
  ));
  const warnings = warningsOf(quality);
  if (warnings.length) {
    section.append(h("h3", {}, t("warnings")), h("ul", { class: "warnings" }, warnings.map((w) => h("li", {}, w))));
  }
  const types = Object.entries(summary);
  if (types.length) {
    section.append(h("table", { id: "type-counts" },
      h("caption", { class: "visually-hidden" }, t("counts_caption")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("type")), h("th", { scope: "col" }, t("count")))),
      h("tbody", {}, types.map(([type, count]) => h("tr", {},
        h("td", {}, h("mark", { class: colourOf(type) }, label(type))), h("td", {}, String(count)))))));
  } else {
    section.append(h("p", {}, t("no_findings")));
  }
  const original = h("pre", { id: "original-text", tabindex: "0" }, highlighted(plain.text, findings));
  const maskedText = h("pre", { id: "masked-text", tabindex: "0" }, masked.text);
  const marks = () => Array.from(original.querySelectorAll("mark"));
  let current = -1;
  const go = (step) => {
    const all = marks();
    if (!all.length) return;
    current = (current + step + all.length) % all.length;
    all[current].focus();
  };
  original.addEventListener("keydown", (event) => {
    if (event.key === "n" || event.key === "j") { event.preventDefault(); go(1); }
    if (event.key === "p" || event.key === "k") { event.preventDefault(); go(-1); }
  });
  section.append(h("div", { class: "finding-nav" },
    h("button", { type: "button", class: "secondary", onclick: () => go(-1) }, t("previous_finding")),
    h("button", { type: "button", class: "secondary", onclick: () => go(1) }, t("next_finding")),
    h("span", { class: "muted" }, t("finding_keys")),
    download(file.name, masked.text),
    downloadFile(file)));
  section.append(h("div", { class: "panes" },
    h("div", { class: "pane" }, h("h2", {}, t("original_pane")), original),
    h("div", { class: "pane" }, h("h2", {}, t("masked_pane")), maskedText)));
  return section;
}

page("try", () => {
  const status = h("div", { id: "try-status", role: "status", "aria-live": "polite" });
  const output = h("div", { id: "try-output" });
  const input = h("input", { type: "file", id: "file", name: "file" });
  const drop = h("label", { class: "drop", for: "file" },
    h("strong", {}, t("drop_title")), h("br"), h("span", { class: "muted" }, t("drop_hint")), h("br"), input);
  const run = async (file) => {
    if (!file) return;
    output.replaceChildren();
    status.replaceChildren(h("p", {}, t("reading", { name: file.name })));
    const plain = await preview(file, false);
    if (!plain.ok) {
      status.replaceChildren(failure(plain));
      return;
    }
    const masked = await preview(file, true);
    if (!masked.ok) {
      status.replaceChildren(failure(masked));
      return;
    }
    status.replaceChildren(h("p", { class: "message ok" }, t("read_done", { n: plain.body.data.pii.pii_count })));
    output.replaceChildren(result(file, plain.body.data, masked.body.data));
  };
  input.addEventListener("change", () => run(input.files[0]));
  for (const name of ["dragenter", "dragover"]) {
    drop.addEventListener(name, (event) => { event.preventDefault(); drop.classList.add("over"); });
  }
  for (const name of ["dragleave", "drop"]) {
    drop.addEventListener(name, () => drop.classList.remove("over"));
  }
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    run(event.dataTransfer.files[0]);
  });
  main_append(h("h1", {}, t("try_title")), h("p", {}, t("try_intro")), drop, status, output);
});

function main_append(...nodes) {
  document.getElementById("main").append(...nodes);
}
