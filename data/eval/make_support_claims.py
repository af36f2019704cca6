# ruff: noqa: E501 - the claims and passages are data, one per line
"""Writes ``data/eval/support_claims.jsonl`` (see ``data/eval/README.md``).

    python data/eval/make_support_claims.py

Each passage is a clause of a sample contract, verbatim from
``data/sources/contracts/*.md`` (bold markers dropped, list items kept), with its
section path (article and clause titles, as ingest gives them); the manual passages are
sentences of the Debian Policy Manual (4.6.2.0, ``make testdata``) as its PDF's text
layer reads, around the gold sentences of ``manuals_qa.jsonl``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "data/sources/contracts"


def clauses(name):
    out, article, last = {}, None, None
    for line in (SRC / f"{name}.md").read_text().splitlines():
        if last and re.match(r"\([a-z]\) ", line):  # a list item of the clause before
            out[last]["text"] += "\n" + line
            continue
        if line.strip() and not line.startswith("("):
            last = None
        m = re.match(r"## ARTICLE (\d+) (.+)", line)
        if m:
            article = f"{m.group(1)} {m.group(2).title()}"
            continue
        m = re.match(r"(\d+\.\d+) \*\*(.+?)\.\*\* (.*)", line)
        if m:
            num, title, body = m.groups()
            out[num] = {"section": f"{article} > {num} {title}", "text": f"{num} {title}. {body}"}
            last = num
    return out


C = {n: clauses(n) for n in ("msa", "nda", "saas", "lease")}


def P(doc, *nums):
    return [{"source": f"contracts/{doc}.pdf", **C[doc][n]} for n in nums]


MAN = {
    "pol-02": (
        "policy.pdf",
        "3 Binary packages > 3.4 The description of a package > 3.4.1 The single line synopsis",
        "3.4.1 The single line synopsis The single line synopsis should be kept brief—certainly under 80 characters. Do not include the package name in the synopsis line. The display software knows how to display this already, and you do not need to state it.",
    ),
    "pol-08": (
        "policy.pdf",
        "12 Documentation > 12.1 Manual pages",
        "12.1 Manual pages You should install manual pages in nroff source form, in appropriate places under /usr/share/man. You should only use sections 1 to 9 (see the FHS for more details). You must not install a pre-formatted “cat page”. Each program, utility, and function should have an associated manual page included in the same package or a dependency.",
    ),
    "pol-10": (
        "policy.pdf",
        "10 Files > 10.9 Permissions and owners",
        "Control information files should be owned by root:root and either mode 644 (for most files) or mode 755 (for executables such as maintainer scripts). Setuid and setgid executables should be mode 4755 or 2755 respectively, and owned by the appropriate user or group. They should not be made unreadable (modes like 4711 or 2711 or even 4111); doing so achieves no extra security, because anyone can find the binary in the freely available Debian package; it is merely inconvenient.",
    ),
    "pol-12": (
        "policy.pdf",
        "12 Documentation > 12.3 Additional documentation",
        "Plain text documentation should be compressed with gzip -9 unless it is small. If a package comes with large amounts of documentation that many users of the package will not require, you should create a separate binary package to contain it so that it does not take up disk space on the machines of users who do not need or want it installed.",
    ),
}


def M(*ids):
    return [{"source": MAN[i][0], "section": MAN[i][1], "text": MAN[i][2]} for i in ids]


cases = [
    # --- the three swaps of issue 45, in the sample documents -------------------------
    (
        "swap-renewal-transition",
        "How long is the automatic renewal period?",
        "The automatic renewal period is 120 days.",
        P("msa", "5.1", "5.2", "5.4"),
        False,
        "120 days is the transition-assistance period (5.4(d)); a renewal term is one year",
    ),
    (
        "swap-bonus-late-rate",
        "What is the target annual bonus?",
        "The target annual bonus is 1.5% of the base salary.",
        P("saas", "6.2", "6.3", "6.5"),
        False,
        "1.5% is the late-payment interest rate",
    ),
    (
        "swap-confidentiality-export",
        "How long do the confidentiality obligations last?",
        "The confidentiality obligations last sixty (60) days after termination.",
        P("saas", "7.6", "8.2", "8.3"),
        False,
        "60 days is the data-export window (7.6); confidentiality survives three years",
    ),
    # --- more swaps: a value of another thing in the passages ------------------------
    (
        "swap-payment-cure",
        "How long does the Client have to pay an invoice?",
        "The Client must pay each invoice within 30 days of receiving it.",
        P("msa", "4.4", "5.3", "3.2"),
        False,
        "30 days is the cure period and the Key Personnel notice; invoices are due in 45 days",
    ),
    (
        "swap-transition-warranty",
        "For how long must the Provider give transition assistance?",
        "The Provider must give transition assistance for up to ninety (90) days.",
        P("msa", "5.4", "8.2"),
        False,
        "90 days is the deliverables warranty period; transition assistance is 120 days",
    ),
    (
        "swap-cap-employer",
        "What is the cap on each party's liability?",
        "Each party's total liability is capped at $1,000,000.",
        P("msa", "10.2", "11.1"),
        False,
        "$1,000,000 is the employer's liability insurance limit",
    ),
    (
        "swap-incident-invoice",
        "How soon must the Provider report a Security Incident?",
        "The Provider must notify the Customer of a Security Incident within thirty (30) days.",
        P("saas", "7.4", "6.2", "7.6"),
        False,
        "30 days is the invoice payment term and the deletion period; incidents: 72 hours",
    ),
    (
        "swap-initial-renewal",
        "How long is the initial subscription term?",
        "The initial Subscription Term is twelve (12) months.",
        P("saas", "9.1", "9.2"),
        False,
        "12 months is each renewal period; the initial term is 36 months",
    ),
    (
        "swap-admins-training",
        "How many administrators may the Customer designate for support?",
        "The Customer may designate up to twelve (12) administrators to submit support requests.",
        P("saas", "4.2", "4.3"),
        False,
        "12 is the number of personnel trained; up to 8 administrators",
    ),
    (
        "swap-allowance-parking",
        "What is the tenant improvement allowance per square foot?",
        "The Tenant Improvement Allowance is $95.00 per rentable square foot.",
        P("lease", "8.1", "10.3"),
        False,
        "$95.00 is the monthly fee of an unreserved parking permit; the allowance is $55.00",
    ),
    (
        "swap-abatement-deposit",
        "For how many months is Base Rent abated?",
        "Base Rent is abated for the first thirty-six (36) months of the Term.",
        P("lease", "4.2", "6.3", "10.3"),
        False,
        "36 months is the deposit-reduction and parking-rate period; abatement is 4 months",
    ),
    (
        "swap-deposit-restore",
        "When must the Landlord return the Security Deposit?",
        "The Landlord must return the Security Deposit within ten (10) days.",
        P("lease", "6.2", "6.4"),
        False,
        "10 days is the time the Tenant has to restore the deposit; the Landlord returns it within 45 days",
    ),
    (
        "swap-term-survival",
        "How long is the term of the NDA?",
        "The NDA stays in effect for five (5) years.",
        P("nda", "6.1", "6.2"),
        False,
        "5 years is the survival period; the term is 2 years",
    ),
    (
        "swap-unauthorized-compelled",
        "How soon must the Receiving Party report an unauthorized disclosure?",
        "The Receiving Party must notify the Disclosing Party of an unauthorized disclosure at least ten (10) business days in advance.",
        P("nda", "2.6", "4.1"),
        False,
        "10 business days is the notice before a compelled disclosure; unauthorized use: 2 business days",
    ),
    (
        "swap-synopsis-sections",
        "How long can the one-line description of a package be?",
        "The single line synopsis must be under 9 characters.",
        M("pol-02", "pol-08"),
        False,
        "9 is the last manual section; the synopsis is under 80 characters",
    ),
    (
        "swap-nonsolicit-warranty",
        "How long does the non-solicitation restriction last after the agreement ends?",
        "Neither Party may solicit the other's employees for ninety (90) days after the agreement ends.",
        P("msa", "12.1", "8.2"),
        False,
        "90 days is the warranty period; non-solicitation lasts 12 months",
    ),
    # --- a value of another thing in the same sentence (hard: value and subject co-occur)
    (
        "same-sentence-renewal-notice",
        "How long is each renewal term?",
        "Each renewal term lasts ninety (90) days.",
        P("msa", "5.1", "5.2"),
        False,
        "90 days is the non-renewal notice, in the sentence that gives the one-year renewal term",
    ),
    (
        "same-sentence-setgid",
        "What mode should a setuid program be installed with?",
        "A setuid executable should be mode 2755.",
        M("pol-10", "pol-12"),
        False,
        "2755 is the setgid mode ('respectively'); setuid is 4755",
    ),
    # --- true claims, in words other than the passage's -------------------------------
    (
        "para-convenience-notice",
        "How much notice must the Client give to terminate for convenience?",
        "To end the agreement for convenience, the Client has to give 60 days' written notice.",
        P("msa", "5.1", "5.2", "5.3"),
        True,
        "",
    ),
    (
        "para-msa-confidentiality",
        "How long do the confidentiality obligations last after the agreement ends?",
        "Confidentiality duties continue for four years after the agreement expires or is terminated.",
        P("msa", "7.4", "7.5", "7.6"),
        True,
        "",
    ),
    (
        "para-msa-late-interest",
        "What interest is charged on late payments?",
        "Overdue amounts bear interest of 1% per month [2].",
        P("msa", "4.4", "4.6", "4.5"),
        True,
        "",
    ),
    (
        "para-msa-incident",
        "How quickly must the Provider report a security incident?",
        "The Provider has to tell the Client about a Security Incident no later than 48 hours after it learns of it.",
        P("msa", "7.5", "7.6", "9.1"),
        True,
        "",
    ),
    (
        "para-placement-fee",
        "What does a party owe if it hires the other's employee?",
        "The hiring party pays a placement fee of 35% of the employee's yearly base compensation.",
        P("msa", "12.1", "12.2"),
        True,
        "",
    ),
    (
        "para-saas-renewal",
        "How long is each renewal period of the subscription?",
        "Each renewal of the subscription lasts twelve months.",
        P("saas", "9.1", "9.2", "6.5"),
        True,
        "",
    ),
    (
        "para-saas-late-rate",
        "What is the late payment interest rate?",
        "Unpaid undisputed amounts accrue interest at 1.5% a month.",
        P("saas", "6.2", "6.3", "6.4"),
        True,
        "",
    ),
    (
        "para-saas-incident",
        "How soon must the Provider report a Security Incident?",
        "The Customer must be told of a Security Incident within 72 hours of the Provider confirming it [1].",
        P("saas", "7.4", "6.2", "7.6"),
        True,
        "",
    ),
    (
        "para-saas-confidentiality",
        "How long do the confidentiality obligations survive?",
        "The confidentiality obligations survive for three years after the agreement ends.",
        P("saas", "7.6", "8.2", "8.3"),
        True,
        "",
    ),
    (
        "para-nda-survival",
        "How long do the Receiving Party's obligations survive the NDA?",
        "Its duties about Confidential Information carry on for five years after the agreement expires or is terminated.",
        P("nda", "6.1", "6.2"),
        True,
        "",
    ),
    (
        "para-nda-unauthorized",
        "How soon must the Receiving Party report an unauthorized disclosure?",
        "The Receiving Party has two business days after learning of an unauthorized use or disclosure to tell the Disclosing Party in writing.",
        P("nda", "2.6", "4.1"),
        True,
        "",
    ),
    (
        "para-lease-late-charge",
        "What is the late charge on rent?",
        "Rent that arrives more than five days late carries a late charge of 5% of the overdue amount.",
        P("lease", "4.4", "4.1"),
        True,
        "",
    ),
    (
        "para-lease-extension",
        "How long is the extension term?",
        "The Tenant may extend the lease once, for another five years.",
        P("lease", "3.2", "3.4"),
        True,
        "",
    ),
    (
        "para-lease-deposit-return",
        "When must the Landlord return the Security Deposit?",
        "The Landlord gives the Security Deposit back within 45 days after the Term expires or the Tenant surrenders the Premises.",
        P("lease", "6.2", "6.4"),
        True,
        "",
    ),
    (
        "para-lease-parking",
        "How much does an unreserved parking permit cost?",
        "Each unreserved permit costs $95 a month.",
        P("lease", "10.3", "8.1"),
        True,
        "",
    ),
    (
        "para-msa-eo-insurance",
        "How much errors and omissions insurance must the Provider carry?",
        "The Provider needs professional liability coverage of at least $5,000,000 per claim.",
        P("msa", "11.1", "10.2"),
        True,
        "",
    ),
    (
        "para-saas-maintenance",
        "How much notice is given before scheduled maintenance?",
        "Customers get at least five days' advance notice of each maintenance window.",
        P("saas", "5.1", "5.2"),
        True,
        "",
    ),
    (
        "para-msa-impact",
        "How soon must the Provider deliver an impact assessment for a change request?",
        "An impact assessment is due within ten Business Days of the Client's change request.",
        P("msa", "2.4", "3.5"),
        True,
        "",
    ),
    (
        "para-synopsis",
        "How long can the one-line description of a package be?",
        "A package's one-line description should stay under 80 characters.",
        M("pol-02", "pol-08"),
        True,
        "",
    ),
    (
        "para-setuid",
        "What mode should a setuid program be installed with?",
        "A setuid executable should have mode 4755.",
        M("pol-10", "pol-12"),
        True,
        "",
    ),
    (
        "para-initial-term",
        "How long is the initial subscription term?",
        "The subscription first runs for thirty-six months.",
        P("saas", "9.1", "9.2"),
        True,
        "",
    ),
    (
        "para-nonsolicit",
        "How long does the non-solicitation restriction last after the agreement ends?",
        "The ban on soliciting each other's employees lasts for twelve months after the agreement ends.",
        P("msa", "12.1", "8.2"),
        True,
        "",
    ),
]
out = ROOT / "data/eval/support_claims.jsonl"
with out.open("w", encoding="utf-8") as f:
    for cid, q, claim, passages, ok, note in cases:
        f.write(
            json.dumps(
                {
                    "id": cid,
                    "question": q,
                    "claim": claim,
                    "supported": ok,
                    "note": note or None,
                    "passages": passages,
                },
                ensure_ascii=False,
            )
            + "\n"
        )
print(len(cases), sum(c[4] for c in cases))
