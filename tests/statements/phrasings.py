"""Natural phrasings of standing user statements, and look-alikes that state none.

Each positive is a sentence a user might write to set a rule, a preference or the task,
with the kinds the card may read it as; each negative is a question, a hypothetical, a
quote or report of someone else's words, narration or chat that must not become a rule
or a preference. Three sets: the one the cues were widened against, one written before
that and not tuned against, and one written after and first run untuned. `python -m
tests.statements.phrasings` prints recall and precision on each.
"""

from __future__ import annotations

from typing import Final

from contextfold import Message, Text
from contextfold._statements._statement import extract_statements

RULE: Final = frozenset({"prohibition", "obligation", "limit", "deadline", "note"})
PREFERENCE: Final = frozenset({"preference"})
DISLIKE: Final = frozenset({"preference", "prohibition"})
TASK: Final = frozenset({"goal", "obligation"})
STANDING: Final = RULE | PREFERENCE | {"permission", "correction"}
"""Kinds that are a rule or a preference: what a negative must never be read as."""

POSITIVES: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    # prohibitions that do not open the sentence
    ("My boss says: never deploy on Fridays.", RULE),
    ("Rule from legal — do not store card numbers.", RULE),
    ("Oh and please don't ever push to main.", RULE),
    ("Whatever you do, don't touch the production database.", RULE),
    ("One more thing, never run migrations against prod.", RULE),
    ("Heads up: we never force-push to shared branches.", RULE),
    ("Direct pushes to the release branch are not allowed.", RULE),
    ("The vendor folder is off-limits.", RULE),
    ("Please leave the generated files alone.", RULE),
    ("Stay away from the legacy billing module.", RULE),
    ("Just so we're clear, do not rename public functions.", RULE),
    ("Company policy: no force pushes.", RULE),
    ("Our security team insists - never log access tokens.", RULE),
    ("Note from the client: don't change the colour scheme.", RULE),
    ("As a rule, we don't merge on weekends.", RULE),
    # conditional stops and checks
    ("If the tests fail, stop and ask me.", RULE),
    ("If the build breaks, stop.", RULE),
    ("If anything looks off, pause and check with me.", RULE),
    ("Should the migration fail, roll back and tell me.", RULE),
    ("Ask me before deleting any files.", RULE),
    ("Check with me before you upgrade dependencies.", RULE),
    ("In case of a merge conflict, stop and ping me.", RULE),
    ("When in doubt, leave the code as it is.", RULE),
    ("If a test is flaky, don't just rerun it.", RULE),
    ("Once the PR is open, do not push more commits without telling me.", RULE),
    ("If you are unsure about a schema change, wait for my approval.", RULE),
    # preferences
    ("I like short answers with bullet points.", PREFERENCE),
    ("I hate emojis in commit messages.", DISLIKE),
    ("I can't stand long preambles.", DISLIKE),
    ("I'd rather you ask before deleting anything.", PREFERENCE),
    ("I really like type hints everywhere.", PREFERENCE),
    ("Personally, I love small focused commits.", PREFERENCE),
    ("I don't like it when you rewrite whole files.", DISLIKE),
    ("I'm not a fan of one-letter variable names.", DISLIKE),
    ("I dislike deeply nested conditionals.", DISLIKE),
    ("I'd appreciate it if you kept the explanations brief.", PREFERENCE),
    ("Honestly, I hate when the agent apologizes.", DISLIKE),
    ("I like to see the diff before you apply it.", PREFERENCE),
    ("I cannot stand trailing whitespace.", DISLIKE),
    ("I'd much rather have tabs than spaces.", PREFERENCE),
    ("I love it when answers cite the file and line.", PREFERENCE),
    ("I'm a big fan of early returns.", PREFERENCE),
    # the task, with no value in it
    ("Your job is to migrate the billing service.", TASK),
    ("Your task today is to clean up the logging code.", TASK),
    ("The main goal is to make the importer faster.", TASK),
    ("What I need from you is a plan for splitting the monolith.", TASK),
    ("Your assignment: write integration tests for the auth flow.", TASK),
    ("Your role here is to review the pull requests I send.", TASK),
    ("The idea is to replace the cron jobs with a queue.", TASK),
    ("I want you to refactor the payment module.", TASK),
    ("You'll be helping me port the deploy scripts to Rust.", TASK),
    ("The end goal is a single command that sets up the dev environment.", TASK),
)

NEGATIVES: Final[tuple[str, ...]] = (
    # questions
    "Should I never deploy on Fridays?",
    "Do you like short answers?",
    "Why did you push to main?",
    "What happens if the tests fail?",
    "Would you rather use Postgres or SQLite?",
    "Don't you think we should stop here?",
    "Is it ok if I hate this library?",
    # hypotheticals
    "If I said never deploy on Fridays, would that break the release?",
    "Imagine a team that never writes tests.",
    "What if we didn't push to main at all?",
    "If I hated tabs, I would have said so.",
    # quoted or reported words of others
    "The README says: never edit generated files.",
    'The linter output said "do not use bare except".',
    "My colleague wrote 'I hate emojis' in the review.",
    "The error message says do not retry.",
    "The docs say never to call this in a loop, but that's outdated.",
    "The tool result says never retry on 429.",
    "Earlier you wrote: never deploy on Fridays.",
    "You told me to never touch the config, but I need it changed now.",
    "The ticket mentions that card numbers must never be stored.",
    # narration
    "I tried that, never worked.",
    "We never got the confirmation email.",
    "I asked twice and never heard back.",
    "After the deploy, we never saw the error again.",
    "In the old days we never wrote tests.",
    "I liked the previous version better.",
    "She hates long meetings.",
    "I used to like Java.",
    "When I ran it yesterday, it stopped halfway.",
    # chat and acknowledgements
    "I like that idea.",
    "I love it, thanks!",
    "I hate to bother you, but the build is red again.",
    "I'd rather not say.",
    "No worries, take your time.",
    "I don't know why it fails.",
    "Stop, that's wrong.",
    "I like where this is going.",
)

HELD_OUT_POSITIVES: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    ("FYI the team lead says never merge without two approvals.", RULE),
    ("Last thing — don't bump the major version.", RULE),
    ("Guys, please, never paste API keys in chat.", RULE),
    ("Editing the lockfile by hand is not permitted.", RULE),
    ("The payments directory is off limits for this task.", RULE),
    ("If the linter complains, stop and show me the output.", RULE),
    ("If a migration looks destructive, ask me first.", RULE),
    ("Ping me before you run anything against staging.", RULE),
    ("Should anything fail twice, stop.", RULE),
    ("I like my commit messages in the imperative mood.", PREFERENCE),
    ("I hate magic numbers in the code.", DISLIKE),
    ("I really can't stand print debugging left in PRs.", DISLIKE),
    ("I'd prefer it if you explained your reasoning briefly.", PREFERENCE),
    ("I love concise docstrings.", PREFERENCE),
    ("I'm not a big fan of inheritance here.", DISLIKE),
    ("Your job today is to write the release notes.", TASK),
    ("Your mission is to get the flaky test suite green.", TASK),
    ("The overall goal is to cut cold start time in half.", TASK),
    ("The plan is to split the monolith into three services.", TASK),
    ("What I want from you is a review of the caching layer.", TASK),
)
"""Written before the cues were widened and not tuned against: a check on overfitting."""

HELD_OUT_NEGATIVES: Final[tuple[str, ...]] = (
    "Do you hate it when builds are slow?",
    "Should we stop if the tests fail?",
    "If I liked Go more, I would have used it.",
    "My manager once said 'never trust a green build'.",
    "The changelog says never to downgrade.",
    "You mentioned that I should never use eval.",
    "We never finished the migration last year.",
    "I hate to say it, but you were right.",
    "I like it!",
    "I tried to stop the container but it hung.",
    "He can't stand the new UI.",
    "The log says the job is not allowed to run.",
    "What's your job here, exactly?",
    "If only the tests were faster.",
    "I never said that.",
)


FRESH_POSITIVES: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    ("Quick heads-up: never rotate the signing keys yourself.", RULE),
    ("Per the client — no breaking API changes.", RULE),
    ("Look, whatever happens, do not drop the users table.", RULE),
    ("Tabs are not allowed in YAML files here.", RULE),
    ("If CI is red, hold off on merging.", RULE),
    ("If you're not sure, ask.", RULE),
    ("Check with me first if a change touches billing.", RULE),
    ("Please leave the public API as it is.", RULE),
    ("I really hate verbose logging.", DISLIKE),
    ("I love when PR descriptions have a summary at the top.", PREFERENCE),
    ("Not a fan of ORMs, honestly.", DISLIKE),
    ("I'd rather keep functions short.", PREFERENCE),
    ("I tend to prefer composition over inheritance.", PREFERENCE),
    ("Your job is basically to keep the CI green.", TASK),
    ("The goal for this session is to add pagination to the API.", TASK),
    ("Today's task: migrate the settings to pydantic v2.", TASK),
    ("We don't use global state in this codebase.", RULE),
    ("Under no circumstances touch the prod database.", RULE),
    ("Always, always run the linter first.", RULE),
    ("Oh, and never log user emails.", RULE),
)
"""Written after the cues were widened and first run untuned (15 of 20 found, one
look-alike promoted); the gaps that run showed were then closed, except the one left
in by design ("Per the client — no ...": five words never lead into a bare "no ...")."""

FRESH_NEGATIVES: Final[tuple[str, ...]] = (
    "I liked your last answer.",
    "Did I say never use tabs?",
    "The style guide says never use tabs.",
    "You recommended that we never cache tokens.",
    "If I were you, I'd never use that library.",
    "We never heard back from the vendor.",
    "I love this, great work!",
    "I hate that it took so long.",
    "Should we leave the old code alone?",
    "Nobody told me that pushes to main are not allowed.",
    "When we tried it, we didn't push anything.",
    "He can't stand meetings.",
    "Why would you never commit on Fridays?",
    "The bot said: do not retry.",
    "In my last job we never wrote docs.",
)


CONVENTIONS: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    ("Use tabs for indentation.", RULE),
    ("Use black for formatting.", RULE),
    ("Use poetry for dependency management.", RULE),
    ("Use the staging cluster for experiments.", RULE),
    ("Indent with two spaces.", RULE),
    ("Sort imports with isort.", RULE),
    ("Reply in bullet points.", RULE),
    ("Add type hints everywhere.", RULE),
    ("Document every public function.", RULE),
    ("Pin all dependency versions.", RULE),
    ("Run the linter before every commit.", RULE),
    ("Prefer composition over inheritance.", PREFERENCE),
    ("Log errors with structlog, not print.", PREFERENCE),
    ("Store secrets in the vault, not in env files.", PREFERENCE),
)
"""Bare imperatives that set how the work is always done: before they had a cue, none of
these 14 reached the card (23 of 42 such instructions in the hunt that found them)."""

ONE_OFFS: Final[tuple[str, ...]] = (
    "Use the grep tool for this.",
    "Use my credit card for the payment.",
    "Sort the list with a key function.",
    "Format the output with json.dumps and show me.",
    "Reply with the stack trace.",
    "Respond to the reviewer in the PR thread.",
    "Add all the files to git.",
    "Run all the tests.",
    "Check each file for syntax errors.",
    "Test it on every platform you can.",
    "We ran the tests before every release.",
    "The job runs on every push.",
    "It crashed on every request.",
    "He prefers tabs over spaces.",
    "I logged in with my password, not the SSO.",
)
"""One-off requests and narration shaped like a convention: no rule, no preference."""


FOREIGN: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    ("Nunca uses print para depurar, usa logging.", RULE),
    ("No toques la base de datos de producción.", RULE),
    ("Por favor, siempre escribe pruebas para el código nuevo.", RULE),
    ("Bitte ändere niemals die öffentliche API.", RULE),
    ("Lösche keine Dateien im Ordner data.", RULE),
    ("Verwende immer Typ-Annotationen.", RULE),
    ("Ne modifie jamais la base de données de production.", RULE),
    ("Utilise toujours des f-strings.", RULE),
    ("本番データベースには絶対に触らないでください。", RULE),
    ("必ずテストを書いてください。", RULE),
    ("不要修改生产数据库。", RULE),
    ("必须使用类型注解。", RULE),
)
"""Rules in Spanish, German, French, Japanese and Chinese: before `_foreign_cues`, 9 of
these 12 reached no card (the three German ones only as facts, for a capitalized noun)."""

FOREIGN_NEGATIVES: Final[tuple[str, ...]] = (
    "No tengo tiempo para eso.",
    "No changes to the API.",
    "No worries, take your time.",
    "No matches in the logs.",
    "Ich habe das nie gesagt.",
    "Funktioniert nicht.",
    "Das geht nicht.",
    "Je ne sais pas.",
    "C'est toujours pareil.",
    "这个方法不要紧。",
    "触らないでくれる？",
    "昨日は何も食べないで寝た。",
    "「触らないでください。」と言われた。",
)
"""Narration, questions and English look-alikes: no rule in any language."""


CHANGED_SETTINGS: Final[tuple[tuple[str, str], ...]] = (
    ("Target Node 18.", "Scratch that, we're targeting Node 20."),
    ("We use Postgres 14.", "We upgraded to Postgres 16."),
    ("Max 3 retries per request.", "Let's bump retries to 5."),
    ("Deploy to us-east-1.", "Move the deploy to eu-west-1 instead."),
    ("Python 3.9 only.", "We're on Python 3.12 now."),
    ("Use port 8080.", "Port is 9090 now."),
    ("Set the timeout to 30 seconds.", "Make the timeout 60 seconds."),
    ("We run Redis 6.", "We're running Redis 7 now."),
    ("Keep the batch size at 32.", "Let's go with a batch size of 64."),
    ("Use 4 workers.", "Bump workers to 8."),
    ("We're on Django 4.2.", "We moved to Django 5.0."),
    ("Cap the page size at 50.", "Page size 100 from now on."),
    ("Pin numpy to 1.26.", "Pin numpy 2.0 instead."),
    ("Use 2 replicas.", "Scale to 3 replicas."),
    ("The API targets Java 17.", "The API now targets Java 21."),
    ("Use Go 1.21.", "Upgrade to Go 1.22."),
)
"""(older, newer): a name with a version or number, changed later in other words. The
newer retires the older. Before `_settings`, 9 of these 16 kept both on the card as
current (the first three found by a hunt, the rest written after it)."""

SEPARATE_SETTINGS: Final[tuple[tuple[str, str], ...]] = (
    ("Node 20 for the API.", "Python 3.12 for the worker."),
    ("Use port 8080 for the API.", "Use port 5432 for Postgres."),
    ("We use Postgres 14.", "We use Redis 7."),
    ("Max 3 retries per request.", "Max 10 requests per minute."),
    ("Node 18 for the frontend.", "Node 20 for the backend."),
    ("Use 4 workers for the queue.", "Use 8 workers for the API server."),
    ("Python 3.12 for the API.", "Python 3.9 for the legacy worker."),
    ("Timeout 30 seconds for reads.", "Timeout 60 seconds for writes."),
    ("We use Postgres 14 in staging.", "Postgres 16 in production."),
    ("Port 8080 is the web app.", "Port 9090 is the metrics endpoint."),
    ("Use Django 4.2 for the admin.", "Use Flask 3.0 for the API."),
    ("Deploy the API to us-east-1.", "Deploy the worker to eu-west-1."),
    ("Use 2 replicas for the web tier.", "Use 3 replicas for the workers."),
    ("Java 17 for the build server.", "Java 21 for the new service."),
    ("Node 18 on the build agents.", "Upgrade the laptops to Node 20."),
    ("Use port 8080 for the API.", "Use port 5432 for the database."),
    ("We use Postgres 14 and Redis 6.", "We upgraded to Postgres 16."),
    ("Please use Python 3.10.", "Don't use Python 2."),
    ("Chapter 3 is done.", "Chapter 4 is next."),
    ("Room 101 is booked.", "Room 102 is free."),
    ("Test 5 fails.", "Test 6 fails too."),
    ("Issue 42 is the login bug.", "Issue 43 is the signup bug."),
    ("Fix bug 12.", "Also fix bug 13."),
    ("Review PR 123.", "Review PR 124 as well."),
    ("Ticket 881 is blocked on legal.", "Ticket 902 is blocked on design."),
)
"""(older, newer): two settings that share a word, a name or a kind of value but are
about different things, or one of many picked by number. Both hold, in either order
(before `_settings`, the retries and requests limits were read as one subject and the
older was dropped; so were "Test 5 fails." and the four after it, by their shared words
or by "fails" read as the key of a number)."""


def standing(text: str) -> list[tuple[str, str]]:
    """(statement, kind) for what a user message with `text` states, as the card reads it."""
    return [(s.text, s.kind) for s in extract_statements(Message("user", (Text(text),)))]


def found(text: str, kinds: frozenset[str]) -> bool:
    """Whether the card reads `text` as one statement of one of `kinds`."""
    return any(kind in kinds for _, kind in standing(text))


def promoted(text: str) -> bool:
    """Whether the card reads `text`, a negative, as a rule or a preference."""
    return any(kind in STANDING for _, kind in standing(text))


def score(
    name: str, positives: tuple[tuple[str, frozenset[str]], ...], negatives: tuple[str, ...]
) -> None:
    """Print recall on `positives` and precision against `negatives`, and each miss."""
    hits = [text for text, kinds in positives if found(text, kinds)]
    false = [text for text in negatives if promoted(text)]
    recall = len(hits) / len(positives)
    precision = len(hits) / (len(hits) + len(false)) if hits or false else 1.0
    print(f"{name}: recall {len(hits)}/{len(positives)} {recall:.1%}, ", end="")
    print(f"negatives promoted {len(false)}/{len(negatives)}, precision {precision:.1%}")
    for text, kinds in positives:
        if text not in hits:
            print(f"  missed: {text} -> {standing(text)} (wanted {sorted(kinds)})")
    for text in false:
        print(f"  promoted: {text} -> {standing(text)}")


def main() -> None:
    score("tuned set", POSITIVES, NEGATIVES)
    score("held-out set", HELD_OUT_POSITIVES, HELD_OUT_NEGATIVES)
    score("fresh set", FRESH_POSITIVES, FRESH_NEGATIVES)
    score("conventions", CONVENTIONS, ONE_OFFS)
    score("other languages", FOREIGN, FOREIGN_NEGATIVES)


if __name__ == "__main__":
    main()
