"""A new user's journey through a Python client generated from docsieve's /openapi.json by
openapi-python-client, and nothing else: no raw HTTP call to the API, every answer read as the
client's typed models. The exports are read back with pandas.

    python3 client_journey.py BASE_URL OUTBOX_DIR PUBLIC_BASE_URL SAMPLE_FILE

The generated package (`docsieve_client`) must be on PYTHONPATH. The mail is read from the server's
outbox with Python's `email` module, and its link is followed (the page it opens must be served). A
local receiver takes the webhook's delivery. Prints one line per step; exits non-zero on the first
step that fails.
"""

import email
import email.policy
import http.server
import io
import json
import pathlib
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pandas

from docsieve_client import AuthenticatedClient, Client
from docsieve_client.api.account import create_api_key, get_usage
from docsieve_client.api.auth import login, signup, verify_email
from docsieve_client.api.datasets import create_dataset, export_dataset, get_dataset
from docsieve_client.api.processing import (
    get_job,
    list_documents,
    list_executions,
    preview_document,
    submit_async,
)
from docsieve_client.api.system import get_health, head_health
from docsieve_client.api.webhooks import create_webhook, list_webhook_deliveries
from docsieve_client.models import (
    AsyncUpload,
    CreateApiKeyRequest,
    CreateDatasetRequest,
    CreateWebhookRequest,
    DatasetStatus,
    DeliveryStatus,
    EnvelopeCreatedApiKey,
    EnvelopeDatasetView,
    EnvelopeHealthReport,
    EnvelopeJobView,
    EnvelopePageDeliveryView,
    EnvelopePageDocumentView,
    EnvelopePageExecutionView,
    EnvelopePreviewResult,
    EnvelopeQueuedDataset,
    EnvelopeSignupResponse,
    EnvelopeSubmission,
    EnvelopeTokenPair,
    EnvelopeUsage,
    EnvelopeVerified,
    EnvelopeWebhookView,
    ErrorBody,
    ExportFormat,
    FileUpload,
    JobStatus,
    LoginRequest,
    SignupRequest,
    SubmissionStatus,
    TokenRequest,
    WebhookEvent,
)
from docsieve_client.types import File

base_url, outbox, public_base_url, sample_path = sys.argv[1:5]
sample = pathlib.Path(sample_path)
steps = 0


def step(name, condition, detail=""):
    global steps
    steps += 1
    if not condition:
        print(f"step {steps} ({name}) FAILED: {detail}", flush=True)
        sys.exit(1)
    print(f"step {steps} ({name}) ok {detail}".rstrip(), flush=True)


def typed(response, model, name):
    """The parsed body of a 2xx answer, as `model`; anything else fails the step."""
    parsed = response.parsed
    step(
        name,
        200 <= response.status_code < 300 and isinstance(parsed, model),
        f"{response.status_code} {type(parsed).__name__}: {response.content[:300]!r}",
    )
    return parsed


def wait(name, probe, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = probe()
        if value is not None:
            return value
        time.sleep(0.25)
    step(name, False, f"not done within {seconds} s")


anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)

# 1. Sign up.
address = "journey@example.com"
password = "journey-password-1"
answer = signup.sync_detailed(client=anonymous, body=SignupRequest(email=address, password=password))
signed = typed(answer, EnvelopeSignupResponse, "sign up")

# 2. The verification mail: read with `email`, its link followed, its token sent.
mail_file = wait(
    "verification mail",
    lambda: next(iter(sorted(pathlib.Path(outbox).glob("*verify_email*.eml"))), None),
    seconds=20,
)
message = email.message_from_bytes(mail_file.read_bytes(), policy=email.policy.default)
text = message.get_body(preferencelist=("plain",)).get_content()
links = [word for word in text.split() if word.startswith(public_base_url)]
step("the mail links to the public address", len(links) == 1, repr(text))
link = urllib.parse.urlsplit(links[0])
token = urllib.parse.parse_qs(link.query)["token"][0]
step("the link carries the token whole", len(token) == 64 and token in text.replace(links[0], ""), token)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


try:
    urllib.request.build_opener(NoRedirect).open(f"{base_url}{link.path}?{link.query}")
    status, location = 200, None
except urllib.error.HTTPError as answer:
    status, location = answer.code, answer.headers.get("Location")
step("the link leads to the console's page", status == 302 and location == f"/console#/verify-email?token={token}", location)
with urllib.request.urlopen(f"{base_url}/console/assets/app.js") as script:
    console = script.read().decode()
step("the console's page confirms through the API", 'page("verify-email"' in console and "/v1/auth/verify-email" in console)
verified = typed(
    verify_email.sync_detailed(client=anonymous, body=TokenRequest(token=token)),
    EnvelopeVerified,
    "verify",
)

# 3. Log in.
tokens = typed(
    login.sync_detailed(client=anonymous, body=LoginRequest(email=address, password=password)),
    EnvelopeTokenPair,
    "log in",
)
session = AuthenticatedClient(base_url=base_url, token=tokens.data.access_token)

# 4. An API key; the rest runs on it.
key = typed(
    create_api_key.sync_detailed(client=session, body=CreateApiKeyRequest(name="journey")),
    EnvelopeCreatedApiKey,
    "API key",
)
keyed = AuthenticatedClient(base_url=base_url, token=key.data.api_key, prefix="", auth_header_name="X-API-KEY")


def upload(name, content):
    return File(payload=io.BytesIO(content), file_name=name, mime_type="text/plain")


# 5. A masked preview.
preview = typed(
    preview_document.sync_detailed(
        client=keyed, body=FileUpload(file=upload(sample.name, sample.read_bytes())), masked=True
    ),
    EnvelopePreviewResult,
    "masked preview",
)
found = {finding.type_ for finding in preview.data.pii.findings}
step(
    "the preview masks the national id and the IBAN",
    "10000000146" not in preview.data.text and "[MASKED_NATIONAL_ID_TR]" in preview.data.text
    and {"national_id_tr", "iban_tr"} <= {str(t.value) for t in found},
    f"{sorted(str(t.value) for t in found)}",
)

# 6. A receiver for the webhook, registered before the work it reports.
received = []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        received.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


receiver = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
hook = typed(
    create_webhook.sync_detailed(
        client=keyed,
        body=CreateWebhookRequest(
            url=f"http://127.0.0.1:{receiver.server_port}/hook",
            events=[WebhookEvent.DATASET_READY, WebhookEvent.JOB_COMPLETED],
        ),
    ),
    EnvelopeWebhookView,
    "webhook",
)
step("the webhook's secret is shown once", isinstance(hook.data.secret, str) and len(hook.data.secret) > 16)

# 7. An asynchronous upload, polled to its end.
submission = typed(
    submit_async.sync_detailed(
        client=keyed,
        body=AsyncUpload(files=[upload("letter.txt", sample.read_bytes()), upload("empty.txt", b"")]),
        masked=True,
    ),
    EnvelopeSubmission,
    "async upload",
)
step(
    "one queued, the empty file refused by name",
    submission.data.status == SubmissionStatus.QUEUED
    and len(submission.data.job_ids) == 1
    and [r.code for r in submission.data.rejected] == ["empty_document"],
)
job_id = submission.data.job_ids[0]


def job_done():
    job = typed(get_job.sync_detailed(job_id, client=keyed), EnvelopeJobView, "poll the job").data
    return job if job.status in (JobStatus.COMPLETED, JobStatus.FAILED) else None


job = wait("the job ends", job_done)
step("the job completed", job.status == JobStatus.COMPLETED and isinstance(job.execution_id, int), str(job.status))

# 8. Documents and executions.
documents = typed(list_documents.sync_detailed(client=keyed), EnvelopePageDocumentView, "documents")
step("the document is listed", any(d.filename == "letter.txt" for d in documents.data.items))
executions = typed(list_executions.sync_detailed(client=keyed), EnvelopePageExecutionView, "executions")
step("its execution is listed", any(e.execution_id == job.execution_id for e in executions.data.items))

# 9. A dataset from the execution.
queued = typed(
    create_dataset.sync_detailed(
        client=keyed, body=CreateDatasetRequest(name="journey", execution_ids=[job.execution_id])
    ),
    EnvelopeQueuedDataset,
    "dataset",
)


def dataset_ready():
    dataset = typed(get_dataset.sync_detailed(queued.data.id, client=keyed), EnvelopeDatasetView, "poll the dataset").data
    return dataset if dataset.status in (DatasetStatus.READY, DatasetStatus.FAILED) else None


dataset = wait("the dataset is built", dataset_ready)
step("the dataset is ready", dataset.status == DatasetStatus.READY and dataset.row_count == 1, str(dataset.status))

# 10. Parquet and JSONL, read by pandas.
for form, read in ((ExportFormat.PARQUET, pandas.read_parquet), (ExportFormat.JSONL, lambda f: pandas.read_json(f, lines=True))):
    exported = typed(export_dataset.sync_detailed(dataset.id, client=keyed, format_=form), File, f"export {form.value}")
    frame = read(io.BytesIO(exported.payload.read()))
    text = " ".join(str(value) for value in frame["text"])
    step(f"{form.value} read by pandas, masked", len(frame) == 1 and "10000000146" not in text and "[MASKED_" in text)

# 11. The webhook's delivery, in the log and at the receiver.
deliveries = wait(
    "the dataset.ready delivery",
    lambda: (
        lambda page: page if any(d.event == WebhookEvent.DATASET_READY and d.status == DeliveryStatus.DELIVERED for d in page.data.items) else None
    )(typed(list_webhook_deliveries.sync_detailed(hook.data.id, client=keyed), EnvelopePageDeliveryView, "deliveries")),
    seconds=60,
)
step("the receiver got it", any(event.get("event") == "dataset.ready" for event in received), f"{len(received)} events")

# 12. Usage.
usage = typed(get_usage.sync_detailed(client=keyed), EnvelopeUsage, "usage")
step("usage counts the work", usage.data.documents_processed >= 1 and usage.data.credits_.used >= 1, str(usage.data.to_dict()))

# 13. Health, both ways.
health = typed(get_health.sync_detailed(client=anonymous), EnvelopeHealthReport, "health")
step("health reports ok", health.data.status in ("ok", "degraded"), health.data.status)
step("HEAD health", head_health.sync_detailed(client=anonymous).status_code == 200)

# 14. A bad key: a typed 401 with its code.
bad = AuthenticatedClient(base_url=base_url, token="dsk_not_a_key", prefix="", auth_header_name="X-API-KEY")
answer = get_usage.sync_detailed(client=bad)
step(
    "a bad key is a typed 401",
    answer.status_code == 401 and isinstance(answer.parsed, ErrorBody) and answer.parsed.code == "invalid_api_key",
    f"{answer.status_code} {answer.content!r}",
)

print(f"journey: {steps} steps passed through the generated client", flush=True)
