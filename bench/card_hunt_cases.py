"""Hunt scenarios for the user-state card: what the user said, updates, and look-alikes.

Rules:
1. A scenario is a list of steps said in order: `U` (a user message), `A` (assistant
   text), `T` (a tool result). `keep` are values that still hold at the end (each must
   appear in the output), `stale` pairs (old, new) where `new` replaced `old`, and
   `foreign` values said only in chit-chat, by a tool or by the assistant, which must never
   reach the card or a user-state summary line.
2. The phrasings are new (not the test suite's sentences): questions with an embedded
   constraint, lists, parentheticals, negations, conditionals, units, dates, money, names,
   emails, URLs, paths, versions and percentages; updates with and without a shared
   subject word; retractions.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Scenario:
    name: str
    steps: tuple[tuple[str, str], ...]
    keep: tuple[str, ...] = ()
    stale: tuple[tuple[str, str], ...] = ()
    foreign: tuple[str, ...] = ()
    gone: tuple[str, ...] = field(default=())
    """Values a retraction lifted: never shown on the card as current."""


def U(text: str) -> tuple[str, str]:
    return ("user", text)


def A(text: str) -> tuple[str, str]:
    return ("assistant", text)


def T(text: str) -> tuple[str, str]:
    return ("tool", text)


S = Scenario
SCENARIOS: tuple[Scenario, ...] = (
    # --- plain statements of every kind, varied shapes ---------------------------------
    S(
        "question-embedded",
        (U("Could you rewrite the parser in Rust 1.79, keeping it under 120 lines?"),),
        keep=("1.79", "120"),
    ),
    S(
        "bullets",
        (
            U(
                "A few ground rules before we start:\n- never touch the vendor_blob directory\n"
                "- commits must reference JIRA-4471\n- keep PRs below 400 changed lines"
            ),
        ),
        keep=("vendor_blob", "JIRA-4471", "400"),
    ),
    S(
        "parenthetical",
        (U("The export job (it runs nightly at 02:45 UTC) must not overlap with the backup."),),
        keep=("02:45",),
    ),
    S(
        "dont-ever",
        (U("Don't ever run terraform destroy against the acct-88213 account."),),
        keep=("acct-88213",),
    ),
    S(
        "make-sure-never",
        (U("Make sure you never log the value of PAYMENT_HMAC_KEY anywhere."),),
        keep=("PAYMENT_HMAC_KEY",),
    ),
    S(
        "conditional",
        (U("If the canary error rate goes above 2.5%, roll back immediately."),),
        keep=("2.5%",),
    ),
    S(
        "email",
        (U("Send the weekly digest to ops-lead@harbormail.net, nobody else."),),
        keep=("ops-lead@harbormail.net",),
    ),
    S(
        "url",
        (
            U(
                "Our staging dashboard lives at https://grafana.stg.quillpoint.io/d/abc12 "
                "so use that one."
            ),
        ),
        keep=("https://grafana.stg.quillpoint.io/d/abc12",),
    ),
    S(
        "path",
        (U("All generated reports go in /srv/reports/quarterly and nowhere else."),),
        keep=("/srv/reports/quarterly",),
    ),
    S(
        "preference",
        (U("I'd rather you answer in bullet points, and keep code samples in TypeScript 5.4."),),
        keep=("5.4",),
    ),
    S(
        "goal",
        (U("The goal for this week is to get p95 latency of the checkout API down to 180 ms."),),
        keep=("180",),
    ),
    S(
        "fact-name",
        (U("My manager is Ingrid Solberg and she signs off on every release."),),
        keep=("Ingrid Solberg",),
    ),
    S(
        "money-limit",
        (U("We can spend at most $1,250 on the load-testing service this month."),),
        keep=("$1,250",),
    ),
    # --- updates sharing a subject word --------------------------------------------------
    S(
        "update-email",
        (
            U("My email is dana.k@oldmail.org for the invoices."),
            A("Got it."),
            U("My email changed to dana.k@newmail.io, please update it."),
        ),
        keep=("dana.k@newmail.io",),
        stale=(("dana.k@oldmail.org", "dana.k@newmail.io"),),
    ),
    S(
        "update-meeting",
        (
            U("The review meeting is Thursday at 3pm."),
            U("Heads up: the review meeting got moved to Friday at 11am."),
        ),
        keep=("Friday",),
        stale=(("Thursday", "Friday"),),
    ),
    S(
        "update-python",
        (U("The CI image must use Python 3.10.14."), U("Switch the CI image to Python 3.12.4.")),
        keep=("3.12.4",),
        stale=(("3.10.14", "3.12.4"),),
    ),
    S(
        "update-coverage",
        (
            U("Target coverage is 78% for the billing module."),
            U("Let's raise the billing coverage target to 91%."),
        ),
        keep=("91%",),
        stale=(("78%", "91%"),),
    ),
    S(
        "update-path",
        (
            U("Write the dump to /var/tmp/dump_a.sql please."),
            U("Actually put the dump in /mnt/backup/dump_b.sql instead."),
        ),
        keep=("/mnt/backup/dump_b.sql",),
        stale=(("/var/tmp/dump_a.sql", "/mnt/backup/dump_b.sql"),),
    ),
    S(
        "update-words",
        (U("Keep the release notes under 250 words."), U("Make it 400 words max.")),
        keep=("400",),
        stale=(("250", "400"),),
    ),
    S(
        "update-timeout",
        (U("The request timeout should be 45 seconds."), U("Bump the timeout to 75 seconds.")),
        keep=("75",),
        stale=(("45", "75"),),
    ),
    # --- updates with no shared subject word ---------------------------------------------
    S(
        "flight-moved",
        (
            U("I'm flying out May 12 from Denver."),
            A("Noted, May 12."),
            U("I moved my flight to May 14."),
        ),
        keep=("May 14",),
        stale=(("May 12", "May 14"),),
    ),
    S(
        "budget-bare",
        (U("Our budget for the offsite is $500."), U("Actually make it 650.")),
        keep=("650",),
        stale=(("$500", "650"),),
    ),
    S(
        "budget-money",
        (U("The gift budget is $80 per person."), U("Actually, make it $95.")),
        keep=("$95",),
        stale=(("$80", "$95"),),
    ),
    S(
        "call-me",
        (U("Call me Bob, everyone does."), U("Hmm, please use Robert instead.")),
        keep=("Robert",),
        stale=(("Bob", "Robert"),),
    ),
    S(
        "deploy-target",
        (
            U("Always deploy the hotfix to staging-eu2 first."),
            U("No, deploy it to prod-eu2 instead."),
        ),
        keep=("prod-eu2",),
        stale=(("staging-eu2", "prod-eu2"),),
    ),
    S(
        "date-pushed",
        (U("The launch date is 2026-03-02."), U("We pushed it to 2026-03-16.")),
        keep=("2026-03-16",),
        stale=(("2026-03-02", "2026-03-16"),),
    ),
    S(
        "time-moved",
        (U("Standup happens at 9:15 every day."), U("Change of plan: 9:45 from tomorrow on.")),
        keep=("9:45",),
        stale=(("9:15", "9:45"),),
    ),
    S(
        "percent-bare",
        (U("Set the sampling rate to 12%."), U("Actually 20% is better.")),
        keep=("20%",),
        stale=(("12%", "20%"),),
    ),
    S(
        "version-bare",
        (U("Pin node to 18.19.0 in the Dockerfile."), U("Scratch that, 20.11.1.")),
        keep=("20.11.1",),
        stale=(("18.19.0", "20.11.1"),),
    ),
    S(
        "name-update",
        (
            U("The client contact is Marta Ruiz."),
            U("Marta left; the contact is now Priya Natarajan."),
        ),
        keep=("Priya Natarajan",),
        stale=(("Marta Ruiz", "Priya Natarajan"),),
    ),
    S(
        "headcount",
        (U("We're expecting 40 guests at the dinner."), U("Update: 55 people confirmed.")),
        keep=("55",),
        stale=(("40", "55"),),
    ),
    S(
        "hotel-nights",
        (U("Book the hotel for 3 nights starting June 3."), U("Oh wait, make that 4 nights.")),
        keep=("4 nights",),
        stale=(("3 nights", "4 nights"),),
    ),
    # --- retractions ----------------------------------------------------------------------
    S(
        "retract-fridays",
        (
            U("No deploys on Fridays, ever."),
            A("Understood."),
            U("Forget what I said about Fridays, we deploy any day now."),
        ),
        gone=("Fridays",),
    ),
    S(
        "retract-approval",
        (
            U("Ask for my approval before any purchase over $200."),
            U("The approval rule no longer applies."),
        ),
        gone=("$200",),
    ),
    # --- chit-chat that must not be promoted ---------------------------------------------
    S(
        "chitchat",
        (
            U("haha thanks, my cat just walked across the keyboard and typed 77777"),
            U("lol ok, it's been raining here for 9 days straight"),
            U("Keep the summary to 5 bullets."),
        ),
        keep=("5 bullets",),
        foreign=("77777",),
    ),
    S(
        "question-only",
        (U("What does HTTP 429 mean again?"), U("Use exponential backoff capped at 32 seconds.")),
        keep=("32",),
        foreign=("429",),
    ),
    # --- rule-shaped text from tools and the assistant -----------------------------------
    S(
        "tool-rules",
        (
            U("Refactor the auth module, never commit secrets."),
            T(
                "CONTRIBUTING.md:\nNever merge without 3 approvals.\n"
                "The deadline is 2031-01-09.\nAlways use tabs-9981 style."
            ),
            A("Per CONTRIBUTING, you must keep functions under 61 lines and the budget is $7,777."),
        ),
        keep=("secrets",),
        foreign=("2031-01-09", "tabs-9981", "$7,777"),
    ),
    S(
        "assistant-update",
        (
            U("Use port 8081 for the dev server."),
            A("Actually, I switched it to port 9092 to avoid a clash."),
        ),
        keep=("8081",),
        foreign=("9092",),
    ),
)

HELD_OUT: tuple[Scenario, ...] = (
    S(
        "ho-deadline-moved",
        (
            U("The report is due on October 3."),
            A("Okay, October 3."),
            U("They pushed the report back to October 10."),
        ),
        keep=("October 10",),
        stale=(("October 3", "October 10"),),
    ),
    S(
        "ho-max-guests",
        (U("The venue holds at most 120 attendees."), U("Correction: 150 attendees max.")),
        keep=("150",),
        stale=(("120", "150"),),
    ),
    S(
        "ho-price-bare",
        (U("I'm willing to pay up to €300 for the tickets."), U("Hmm, actually make it €350.")),
        keep=("€350",),
        stale=(("€300", "€350"),),
    ),
    S(
        "ho-version-switch",
        (U("Our services run on Java 17.0.9."), U("We switched everything to 21.0.2 last week.")),
        keep=("21.0.2",),
        stale=(("17.0.9", "21.0.2"),),
    ),
    S(
        "ho-time-shift",
        (U("Daily sync is at 10:30."), U("Update: 11:15 from now on.")),
        keep=("11:15",),
        stale=(("10:30", "11:15"),),
    ),
    S(
        "ho-ratio",
        (U("Keep the error budget at 0.5% of requests."), U("Scratch that, 1.5%.")),
        keep=("1.5%",),
        stale=(("0.5%", "1.5%"),),
    ),
    S(
        "ho-url-change",
        (
            U("The docs site is https://docs.orbitlane.dev/v1 for now."),
            U("The docs moved to https://docs.orbitlane.dev/v2 yesterday."),
        ),
        keep=("https://docs.orbitlane.dev/v2",),
        stale=(("https://docs.orbitlane.dev/v1", "https://docs.orbitlane.dev/v2"),),
    ),
    S(
        "ho-nickname",
        (U("Please address me as Katherine."), U("Oh, just use Kate instead.")),
        keep=("Kate",),
        stale=(("Katherine", "Kate"),),
    ),
    S(
        "ho-nights",
        (U("Reserve 2 rooms for 5 nights."), U("Actually, 6 nights.")),
        keep=("6 nights",),
        stale=(("5 nights", "6 nights"),),
    ),
    S(
        "ho-retract-tabs",
        (
            U("Indent with tabs in every Makefile-style file."),
            U("Ignore the tabs rule, spaces are fine now."),
        ),
        gone=(),
    ),
    S(
        "ho-never-list",
        (
            U(
                "Rules for the migration:\n1. never drop the ledger_v2 table\n"
                "2. run it only between 01:00 and 03:00\n3. notify #db-oncall first"
            ),
        ),
        keep=("ledger_v2", "01:00", "#db-oncall"),
    ),
    S(
        "ho-cond",
        (U("When the queue depth passes 10,000 messages, page the on-call."),),
        keep=("10,000",),
    ),
    S(
        "ho-chitchat",
        (
            U("lmao the build took 847 seconds again"),
            U("omg my coffee is cold, 3rd cup today"),
            U("Never force-push to release-7."),
        ),
        keep=("release-7",),
        foreign=("847",),
    ),
    S(
        "ho-tool-lookalike",
        (
            U("Fix the flaky test in payments."),
            T("README: All contributors must sign CLA-5521. Deadline: 2029-12-31. Max 12 retries."),
            A("Note: the deadline is 2029-12-31 and you must never exceed 12 retries."),
        ),
        foreign=("CLA-5521", "2029-12-31"),
    ),
    S(
        "ho-assistant-rule",
        (
            U("Go ahead with the cleanup."),
            A(
                "From now on I will always use the prefix zz-tmp- for scratch files, and the "
                "budget is $4,321."
            ),
        ),
        foreign=("zz-tmp-", "$4,321"),
    ),
    S(
        "ho-question-rule",
        (U("Can you summarize the incident in at most 90 words?"),),
        keep=("90",),
    ),
)
