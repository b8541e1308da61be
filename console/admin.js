// The running of the service: storage connectors with their connection test, schedules and runs; the
// team (invite, members); the privacy policy; data-subject requests; retention and its destruction
// log. Each action is one API call; lists are the API's pages.

import {
  api, download, failure, h, me, nav, ok, page, pager, t, table, when,
} from "/console/assets/app.js";
import { RECORDS } from "/console/assets/texts.js";

const main = () => document.getElementById("main");
const lang = () => document.documentElement.lang;

/** A work record's code (a connection test's, a run's) as a sentence, with the record's message. */
function recordText(code, message) {
  const known = RECORDS[code];
  const sentence = known ? known[lang()] || known.en : t("record_unknown", { code });
  return message ? `${sentence} (${message})` : sentence;
}

function statusRegion(id) {
  return h("div", { id, role: "status", "aria-live": "polite" });
}

// ---------------------------------------------------------------- connectors

/** The fields of each connector type: [name, input type, required]. */
const CONNECTOR_FIELDS = {
  s3: [["bucket", "text", true], ["region", "text", true], ["aws_access_key_id", "text", true],
    ["aws_secret_access_key", "password", true], ["prefix", "text", false], ["endpoint", "url", false]],
  azure_blob: [["account_name", "text", true], ["container_name", "text", true],
    ["account_key", "password", true], ["prefix", "text", false], ["endpoint", "url", false]],
  gcs: [["bucket", "text", true], ["service_account_key", "textarea", false],
    ["prefix", "text", false], ["endpoint", "url", false]],
};

function connectorFields(type) {
  return CONNECTOR_FIELDS[type].map(([name, kind, required]) => {
    const id = `connector-${name}`;
    const control = kind === "textarea"
      ? h("textarea", { id, name, rows: "4" })
      : h("input", { id, name, type: kind, required, autocomplete: "off" });
    return h("div", { class: "field" }, h("label", { for: id }, t(`field_${name}`) + (required ? "" : ` (${t("optional")})`)), control);
  });
}

function runsTable(id, runs) {
  return table(id, t("runs"), [
    [t("started"), (r) => when(r.started_at)],
    [t("trigger"), (r) => t(`trigger_${r.trigger}`)],
    [t("status"), (r) => h("span", { dataset: { status: r.status } }, t(`run_${r.status}`))],
    [t("run_counts"), (r) => t("run_counts_value", { listed: r.listed, queued: r.queued, skipped: r.skipped, rejected: r.rejected })],
    [t("problem"), (r) => (r.error ? recordText(r.error.code, r.error.message) : "–")],
  ], runs);
}

/** A connector's schedules: each with its runs, "run now" and delete; a form to add one. */
async function schedules(connector, into, status) {
  const base = `/v1/connectors/${connector.id}/schedules`;
  const answer = await api("GET", `${base}?page=1&page_size=50`);
  if (!answer.ok) return into.replaceChildren(failure(answer));
  const cron = h("input", { type: "text", id: `cron-${connector.id}`, name: "cron", required: true, placeholder: "0 3 * * *" });
  const prefix = h("input", { type: "text", id: `schedule-prefix-${connector.id}`, name: "prefix" });
  const add = h("form", { class: "schedule-form", id: `schedule-form-${connector.id}` },
    h("div", { class: "field" }, h("label", { for: cron.id }, t("cron")), cron,
      h("p", { class: "muted hint" }, t("cron_hint"))),
    h("div", { class: "field" }, h("label", { for: prefix.id }, `${t("field_prefix")} (${t("optional")})`), prefix),
    h("button", { type: "submit" }, t("add_schedule")));
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { cron: cron.value.trim() };
    if (prefix.value.trim()) body.prefix = prefix.value.trim();
    const made = await api("POST", base, { json: body });
    status.replaceChildren(made.ok ? ok(t("schedule_added", { next: when(made.body.data.next_run_at) })) : failure(made));
    if (made.ok) schedules(connector, into, status);
  });
  const cards = answer.body.data.items.map((schedule) => {
    const runs = h("div", { class: "runs", id: `runs-${schedule.id}` });
    const showRuns = async () => {
      const listed = await api("GET", `${base}/${schedule.id}/runs?page=1&page_size=10`);
      runs.replaceChildren(listed.ok ? runsTable(`runs-table-${schedule.id}`, listed.body.data.items) : failure(listed));
    };
    showRuns();
    return h("div", { class: "schedule" },
      h("h4", {}, `${schedule.cron}${schedule.prefix ? ` · ${schedule.prefix}` : ""}`),
      h("p", { class: "muted" }, t("schedule_times", { next: when(schedule.next_run_at), last: when(schedule.last_run_at) })),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary", onclick: async () => {
          const run = await api("POST", `${base}/${schedule.id}/trigger`);
          status.replaceChildren(run.ok ? ok(t("run_started", { queued: run.body.data.run.queued })) : failure(run));
          showRuns();
        } }, t("run_now")),
        h("button", { type: "button", class: "secondary", onclick: async () => {
          const gone = await api("DELETE", `${base}/${schedule.id}`);
          status.replaceChildren(gone.ok ? ok(t("schedule_deleted")) : failure(gone));
          schedules(connector, into, status);
        } }, t("delete"))),
      runs);
  });
  into.replaceChildren(h("h4", {}, t("schedules")),
    ...(cards.length ? cards : [h("p", { class: "muted" }, t("no_schedules"))]), add);
}

page("connectors", async () => {
  const status = statusRegion("connectors-status");
  const list = h("div", { id: "connectors-list" });
  const type = h("select", { id: "connector-type", name: "type" },
    Object.keys(CONNECTOR_FIELDS).map((value) => h("option", { value }, t(`connector_${value}`))));
  const name = h("input", { type: "text", id: "connector-name", name: "name", required: true });
  const config = h("fieldset", { id: "connector-config" }, h("legend", {}, t("connection")));
  const fill = () => config.replaceChildren(h("legend", {}, t("connection")), ...connectorFields(type.value));
  type.addEventListener("change", fill);
  fill();
  const create = h("form", { id: "connector-form", class: "wide" },
    h("div", { class: "field" }, h("label", { for: "connector-name" }, t("connector_name")), name),
    h("div", { class: "field" }, h("label", { for: "connector-type" }, t("connector_type")), type),
    config, h("button", { type: "submit" }, t("add_connector")));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = {};
    for (const input of config.querySelectorAll("input, textarea")) {
      if (input.value.trim()) values[input.name] = input.value.trim();
    }
    if (values.service_account_key) {
      try { values.service_account_key = JSON.parse(values.service_account_key); } catch (error) { /* sent as text; the API says what is wrong */ }
    }
    const answer = await api("POST", "/v1/connectors", { json: { type: type.value, name: name.value, config: values } });
    if (!answer.ok) return status.replaceChildren(failure(answer));
    status.replaceChildren(ok(t("connector_added", { name: answer.body.data.name })));
    create.reset();
    fill();
    show();
  });
  const show = async () => {
    const answer = await api("GET", "/v1/connectors?page=1&page_size=50");
    if (!answer.ok) return list.replaceChildren(failure(answer));
    const connectors = answer.body.data.items;
    list.replaceChildren(...(connectors.length ? connectors.map((connector) => {
      const tested = h("div", { class: "tested", role: "status", "aria-live": "polite" });
      const planned = h("div", { class: "schedules" });
      const where = connector.config.bucket || connector.config.container_name || "";
      const section = h("section", { class: "card", "aria-label": connector.name, dataset: { connector: String(connector.id) } },
        h("h3", {}, `${connector.name} · ${t(`connector_${connector.type}`)}`),
        h("p", { class: "muted" }, [where, connector.config.prefix, connector.config.endpoint].filter(Boolean).join(" · ")),
        h("div", { class: "actions" },
          h("button", { type: "button", class: "test", onclick: async () => {
            tested.replaceChildren(h("p", {}, t("testing")));
            const answer = await api("POST", `/v1/connectors/${connector.id}/test`);
            if (!answer.ok) return tested.replaceChildren(failure(answer));
            const outcome = answer.body.data;
            tested.replaceChildren(outcome.ok
              ? ok(t("connection_ok", { n: outcome.objects_seen, ms: outcome.latency_ms }))
              : h("p", { class: "message error", role: "alert" }, recordText(outcome.code, outcome.message)));
          } }, t("test_connection")),
          h("a", { class: "button secondary", href: `#/documents?connector_id=${connector.id}` }, t("its_documents")),
          h("button", { type: "button", class: "secondary", onclick: async () => {
            const gone = await api("DELETE", `/v1/connectors/${connector.id}`);
            status.replaceChildren(gone.ok ? ok(t("connector_deleted")) : failure(gone));
            show();
          } }, t("delete"))),
        tested, planned);
      schedules(connector, planned, status);
      return section;
    }) : [h("p", { class: "muted" }, t("nothing_yet"))]));
  };
  main().append(h("h1", {}, t("nav_connectors")), h("p", {}, t("connectors_intro")), status, list,
    h("h2", {}, t("add_a_connector")), create);
  await show();
});

// ---------------------------------------------------------------- team

page("team", async () => {
  const status = statusRegion("team-status");
  const list = h("div", { id: "members-list" });
  const email = h("input", { type: "email", id: "invite-email", name: "email", required: true, autocomplete: "off" });
  const role = h("select", { id: "invite-role", name: "role" },
    ["member", "admin"].map((value) => h("option", { value }, t(`role_${value}`))));
  const invite = h("form", { id: "invite-form", class: "wide" },
    h("div", { class: "field" }, h("label", { for: "invite-email" }, t("email")), email),
    h("div", { class: "field" }, h("label", { for: "invite-role" }, t("role")), role),
    h("button", { type: "submit" }, t("invite")));
  invite.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await api("POST", "/v1/team/invite", { json: { email: email.value, role: role.value } });
    if (!answer.ok) return status.replaceChildren(failure(answer));
    status.replaceChildren(ok(t("invited", { email: answer.body.data.email, until: when(answer.body.data.expires_at) })));
    invite.reset();
  });
  const show = async (number) => {
    const answer = await api("GET", `/v1/team/members?page=${number}&page_size=20`);
    if (!answer.ok) return list.replaceChildren(failure(answer));
    const self = me();
    const data = answer.body.data;
    list.replaceChildren(table("members-table", t("members"), [
      [t("email"), (m) => m.email],
      [t("role"), (m) => t(`role_${m.role}`)],
      [t("joined_at"), (m) => when(m.joined_at)],
      ["", (m) => (self && m.user_id === self.user_id ? t("you") : h("button", {
        type: "button", class: "secondary", "aria-label": t("remove_member", { email: m.email }), onclick: async () => {
          const gone = await api("DELETE", `/v1/team/members/${m.user_id}`);
          status.replaceChildren(gone.ok ? ok(t("member_removed", { email: m.email })) : failure(gone));
          show(1);
        },
      }, t("remove")))],
    ], data.items), pager(data, show));
  };
  main().append(h("h1", {}, t("nav_team")));
  const self = me();
  if (!self || self.role !== "member") main().append(h("h2", {}, t("invite_title")), invite);
  main().append(status, h("h2", {}, t("members")), list);
  await show(1);
});

// ---------------------------------------------------------------- privacy policy

page("privacy", async () => {
  const status = statusRegion("privacy-status");
  main().append(h("h1", {}, t("nav_privacy")), h("p", {}, t("privacy_intro")));
  const answer = await api("GET", "/v1/settings/privacy");
  if (!answer.ok) return main().append(failure(answer));
  const policy = answer.body.data;
  const operators = ["placeholder", "numbered", "surrogate", "hash", "redact"];
  const operatorSelect = (id, chosen, withDefault) => h("select", { id, name: id },
    (withDefault ? [["", t("operator_default")]] : []).concat(operators.map((o) => [o, t(`operator_${o}`)]))
      .map(([value, text]) => h("option", { value, selected: value === chosen }, text)));
  const types = Array.from(new Set([...Object.keys(policy.effective), ...policy.disabled_types])).sort();
  const fallback = operatorSelect("default-operator", policy.default_operator, false);
  const confidence = h("input", { type: "number", id: "min-confidence", name: "min_confidence", min: "0", max: "1", step: "0.05", value: String(policy.min_confidence) });
  const scope = h("select", { id: "numbered-scope", name: "numbered_scope" },
    ["document", "dataset"].map((value) => h("option", { value, selected: value === policy.numbered_scope }, t(`scope_numbered_${value}`))));
  const vault = h("input", { type: "checkbox", id: "reidentification", checked: policy.reidentification });
  const rows = types.map((type) => {
    const masked = h("input", { type: "checkbox", id: `on-${type}`, checked: !policy.disabled_types.includes(type), "aria-label": t("detect_type", { type }) });
    const operator = operatorSelect(`operator-${type}`, policy.operators[type] || "", true);
    operator.setAttribute("aria-label", t("operator_of", { type }));
    return { type, masked, operator };
  });
  const rulesTable = h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": t("per_type") },
    h("table", { id: "privacy-types" },
      h("caption", { class: "visually-hidden" }, t("per_type")),
      h("thead", {}, h("tr", {}, [t("pii_type"), t("detected"), t("operator")].map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, rows.map(({ type, masked, operator }) => h("tr", {}, h("td", {}, h("code", {}, type)), h("td", {}, masked), h("td", {}, operator))))));
  const save = h("form", { id: "privacy-form", class: "wide" },
    h("dl", { class: "summary" },
      h("div", {}, h("dt", {}, t("policy_version")), h("dd", { id: "policy-version" }, String(policy.version))),
      h("div", {}, h("dt", {}, t("key_version")), h("dd", {}, String(policy.key.version))),
      h("div", {}, h("dt", {}, t("vault_entries")), h("dd", {}, String(policy.vault_entries))),
      h("div", {}, h("dt", {}, t("updated")), h("dd", { id: "policy-updated" }, when(policy.updated_at)))),
    h("div", { class: "field" }, h("label", { for: "default-operator" }, t("default_operator")), fallback),
    h("div", { class: "field" }, h("label", { for: "min-confidence" }, t("min_confidence")), confidence),
    h("div", { class: "field" }, h("label", { for: "numbered-scope" }, t("numbered_scope")), scope),
    h("div", { class: "field inline" }, vault, h("label", { for: "reidentification" }, t("reidentification"))),
    h("h2", {}, t("per_type")), rulesTable,
    h("button", { type: "submit" }, t("save_policy")));
  save.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      disabled_types: rows.filter((row) => !row.masked.checked).map((row) => row.type),
      min_confidence: Number(confidence.value),
      default_operator: fallback.value,
      operators: Object.fromEntries(rows.filter((row) => row.operator.value).map((row) => [row.type, row.operator.value])),
      numbered_scope: scope.value,
      reidentification: vault.checked,
    };
    const saved = await api("PUT", "/v1/settings/privacy", { json: body });
    if (!saved.ok) return status.replaceChildren(failure(saved));
    document.getElementById("policy-version").textContent = String(saved.body.data.version);
    document.getElementById("policy-updated").textContent = when(saved.body.data.updated_at);
    status.replaceChildren(ok(t("policy_saved", { version: saved.body.data.version })));
  });
  const rotate = h("button", { type: "button", class: "secondary", id: "rotate-key", onclick: async () => {
    const rotated = await api("POST", "/v1/settings/privacy/rotate-key");
    status.replaceChildren(rotated.ok ? ok(t("key_rotated", { version: rotated.body.data.version })) : failure(rotated));
  } }, t("rotate_key"));
  main().append(save, status, h("h2", {}, t("pseudonym_key")), h("p", {}, t("rotate_intro")), rotate);
});

// ---------------------------------------------------------------- data-subject requests

page("subjects", async () => {
  const status = statusRegion("subjects-status");
  const found = h("div", { id: "subject-found" });
  const value = h("textarea", { id: "subject-values", name: "values", rows: "3", required: true, autocomplete: "off" });
  const ask = h("form", { id: "subject-form", class: "wide" },
    h("div", { class: "field" }, h("label", { for: "subject-values" }, t("subject_values")), value,
      h("p", { class: "muted hint" }, t("subject_hint"))),
    h("button", { type: "submit" }, t("search_subject")));
  const identifiers = () => value.value.split("\n").map((line) => line.trim()).filter(Boolean).map((v) => ({ value: v }));
  const erase = async () => {
    if (!window.confirm(t("erase_confirm"))) return;
    const answer = await api("POST", "/v1/subjects/erase", { json: { identifiers: identifiers() } });
    if (!answer.ok) return status.replaceChildren(failure(answer));
    const erased = answer.body.data;
    status.replaceChildren(h("div", { class: "message ok", role: "status", id: "erasure" },
      h("p", {}, t("erased", { documents: erased.documents_erased, executions: erased.executions_erased, datasets: erased.datasets_rebuilt.length })),
      h("p", {}, t("receipt"), " ", h("code", { id: "receipt-id" }, erased.receipt_id))));
    found.replaceChildren();
  };
  ask.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await api("POST", "/v1/subjects/search", { json: { identifiers: identifiers() } });
    if (!answer.ok) return status.replaceChildren(failure(answer));
    status.replaceChildren();
    const held = answer.body.data;
    const counts = Object.entries(held.counts_by_type);
    found.replaceChildren(
      h("h2", {}, t("subject_held")),
      h("dl", { class: "summary" },
        h("div", {}, h("dt", {}, t("identifiers_found")), h("dd", { id: "identifiers-found" }, String(held.identifiers_found))),
        h("div", {}, h("dt", {}, t("nav_documents")), h("dd", { id: "subject-documents" }, String(held.documents.length))),
        h("div", {}, h("dt", {}, t("nav_executions")), h("dd", {}, String(held.executions.length))),
        h("div", {}, h("dt", {}, t("nav_datasets")), h("dd", {}, String(held.datasets.length))),
        h("div", {}, h("dt", {}, t("exports")), h("dd", {}, String(held.exports.length)))),
      counts.length ? h("p", {}, counts.map(([type, n]) => `${type}: ${n}`).join(" · ")) : h("p", { class: "muted" }, t("subject_nothing")),
      held.identifiers_found ? h("div", { class: "actions" },
        h("button", { type: "button", id: "subject-access", onclick: () => download("/v1/subjects/access", "subject-access.zip", status, { identifiers: identifiers() }) }, t("download_access")),
        h("button", { type: "button", class: "danger", id: "subject-erase", onclick: erase }, t("erase_subject"))) : null);
  });
  main().append(h("h1", {}, t("nav_subjects")), h("p", {}, t("subjects_intro")), ask, status, found);
});

// ---------------------------------------------------------------- retention

page("retention", async () => {
  const status = statusRegion("retention-status");
  const log = h("div", { id: "destruction-log" });
  main().append(h("h1", {}, t("nav_retention")), h("p", {}, t("retention_intro")));
  const answer = await api("GET", "/v1/compliance/retention");
  if (!answer.ok) return main().append(failure(answer));
  const retention = answer.body.data;
  const days = (value) => (value ? t("days", { n: value }) : t("kept_forever"));
  const summary = h("dl", { class: "summary", id: "retention-summary" });
  const fillSummary = (r) => summary.replaceChildren(
    h("div", {}, h("dt", {}, t("plan")), h("dd", {}, r.plan)),
    h("div", {}, h("dt", {}, t("originals_in_force")), h("dd", { id: "originals-in-force" }, days(r.originals_in_force_days))),
    h("div", {}, h("dt", {}, t("results_in_force")), h("dd", { id: "results-in-force" }, days(r.results_in_force_days))),
    h("div", {}, h("dt", {}, t("plan_limit")), h("dd", {}, `${days(r.plan_originals_retention_days)} / ${days(r.plan_results_retention_days)}`)));
  fillSummary(retention);
  const originals = h("input", { type: "number", id: "originals-days", name: "originals_retention_days", min: "1", value: retention.originals_retention_days ?? "" });
  const results = h("input", { type: "number", id: "results-days", name: "results_retention_days", min: "1", value: retention.results_retention_days ?? "" });
  const change = h("form", { id: "retention-form", class: "wide" },
    h("div", { class: "field" }, h("label", { for: "originals-days" }, t("originals_days")), originals),
    h("div", { class: "field" }, h("label", { for: "results-days" }, t("results_days")), results),
    h("p", { class: "muted hint" }, t("retention_hint")),
    h("button", { type: "submit" }, t("save_retention")));
  change.addEventListener("submit", async (event) => {
    event.preventDefault();
    const number = (input) => (input.value.trim() ? Number(input.value) : null);
    const saved = await api("PUT", "/v1/compliance/retention", {
      json: { originals_retention_days: number(originals), results_retention_days: number(results) },
    });
    if (!saved.ok) return status.replaceChildren(failure(saved));
    fillSummary(saved.body.data);
    status.replaceChildren(ok(t("retention_saved")));
  });
  const show = async (number) => {
    const entries = await api("GET", `/v1/compliance/destruction-log?page=${number}&page_size=20`);
    if (!entries.ok) return log.replaceChildren(failure(entries));
    const data = entries.body.data;
    log.replaceChildren(table("destructions-table", t("destruction_log"), [
      [t("destroyed_at"), (e) => when(e.destroyed_at)],
      [t("category"), (e) => e.category],
      [t("reason"), (e) => e.reason],
      [t("items"), (e) => String(e.items)],
      [t("size"), (e) => `${Math.ceil(e.bytes / 1024)} KB`],
    ], data.items), pager(data, show));
  };
  main().append(summary, change, status, h("h2", {}, t("destruction_log")), log);
  await show(1);
});

nav([["connectors", "nav_connectors"], ["team", "nav_team"], ["privacy", "nav_privacy"],
  ["subjects", "nav_subjects"], ["retention", "nav_retention"], ["usage", "nav_usage"]]);
