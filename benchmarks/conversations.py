"""A conversational memory data set with known answers, generated offline.

Why generated: no conversational memory benchmark with evidence labels ships in a package we
may install, and hub downloads are not allowed. So each user talks with an assistant over
several sessions; a few of the user's messages state personal facts (pet, job, allergy, ...)
in everyday wording, among small talk, requests and *distractors* (messages on the same
subject that are not the answer: the sister's cat, a colleague's job). Other users state the
same kinds of facts with other values. Each question asks for one fact in different words
(little word overlap on purpose, some overlap for some questions), and its ground-truth
evidence is the id of the message that stated the fact. Everything is seeded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

SEED = 7

# kind: (fact templates, question templates, values, distractor templates)
FACTS: dict[str, tuple[list[str], list[str], list[str], list[str]]] = {
    "pet": (
        ["We adopted a rescue puppy last month and named her {v}.",
         "Our new dog {v} chewed through my running shoes this morning."],
        ["What is my dog called?", "What name did we give our pet?"],
        ["Biscuit", "Pepper", "Maple", "Luna", "Noodle", "Juniper", "Waffles", "Ziggy"],
        ["My sister's cat knocked a plant off the shelf again.",
         "The neighbours' parrot screams every morning at six."],
    ),
    "hometown": (
        ["I grew up in {v}, so cold winters don't scare me.",
         "Back in {v}, where I spent my whole childhood, we skated on the lake."],
        ["Where was I raised?", "Which city am I originally from?"],
        ["Winnipeg", "Minneapolis", "Oslo", "Helsinki", "Anchorage", "Quebec City", "Duluth"],
        ["My cousin just moved abroad for a new job.",
         "We might relocate somewhere warmer when we retire."],
    ),
    "job": (
        ["I've worked as a {v} at the regional hospital for six years.",
         "Long shift today, being a {v} never gets easier."],
        ["What is my profession?", "What do I do for a living?"],
        ["nurse", "radiologist", "pharmacist", "paramedic", "physiotherapist", "surgeon"],
        ["My colleague is thinking about quitting to open a bakery.",
         "My father spent forty years as an accountant."],
    ),
    "allergy": (
        ["Heads up, I'm allergic to {v}, so please keep it out of any recipe.",
         "I broke out in hives again, {v} really doesn't agree with me."],
        ["Which ingredient must I avoid for medical reasons?",
         "What food am I allergic to?"],
        ["peanuts", "shellfish", "sesame", "kiwi", "almonds", "eggs", "soy"],
        ["My son refuses to eat anything green.",
         "Can you find a dessert that has little sugar?"],
    ),
    "sibling": (
        ["My younger brother {v} starts university in the fall.",
         "{v}, my little brother, just got his driving licence."],
        ["What is my brother's name?", "Who is my younger sibling?"],
        ["Tomas", "Elliot", "Rafael", "Kenji", "Mateo", "Oscar", "Idris"],
        ["My best friend's sister is getting married in June.",
         "My aunt sends us a postcard from every trip."],
    ),
    "car": (
        ["I finally traded in the old sedan for a {v}.",
         "The {v} we bought handles the mountain roads really well."],
        ["What vehicle do I drive now?", "Which car did I buy?"],
        ["Subaru Outback", "Volvo XC40", "Tesla Model 3", "Mazda CX-5", "Toyota RAV4"],
        ["The bus to work was late three times this week.",
         "My neighbour keeps his motorbike in the shared garage."],
    ),
    "hobby": (
        ["Most Saturdays I go {v}, it clears my head.",
         "I signed up for a {v} club that meets every weekend."],
        ["How do I like to spend my free time?", "What is my favourite pastime?"],
        ["bouldering", "birdwatching", "kayaking", "trail running", "pottery", "fencing"],
        ["My kids want to try every sport at once.",
         "I barely had any spare time this month."],
    ),
    "diet": (
        ["I stopped eating meat two years ago and went fully {v}.",
         "Since going {v} I feel much lighter after meals."],
        ["What kind of diet do I follow?", "Do I have any eating preferences?"],
        ["vegan", "vegetarian", "pescatarian", "keto", "gluten-free"],
        ["My partner loves a big steak on Fridays.",
         "The office canteen only serves pasta on Mondays."],
    ),
    "trip": (
        ["For our anniversary we're flying to {v} in March.",
         "I booked the hotel in {v} for the anniversary getaway."],
        ["Where is my next holiday?", "Which destination did we pick for the celebration?"],
        ["Lisbon", "Kyoto", "Marrakesh", "Reykjavik", "Buenos Aires", "Hanoi", "Cape Town"],
        ["My boss is at a conference in Berlin all week.",
         "Flights for the summer are getting expensive."],
    ),
    "partner": (
        ["My wife {v} teaches piano to kids in the neighbourhood.",
         "{v}, my wife, is preparing for her recital."],
        ["What is my spouse's name?", "Who am I married to?"],
        ["Ingrid", "Amara", "Sofia", "Chloe", "Priya", "Hana", "Greta"],
        ["My friend's husband builds furniture in his garage.",
         "The new teacher at school seems very kind."],
    ),
    "author": (
        ["I've read every novel {v} ever wrote, nobody comes close.",
         "Just preordered the new {v} book, can't wait."],
        ["Who is my favourite writer?", "Which author do I love the most?"],
        ["Ursula K. Le Guin", "Kazuo Ishiguro", "Toni Morrison", "Haruki Murakami",
         "Zadie Smith", "Octavia Butler"],
        ["My book club keeps choosing thrillers I don't enjoy.",
         "The library near us closes early on Sundays."],
    ),
    "medication": (
        ["My doctor put me on {v} for my blood pressure.",
         "Remind me to refill the {v} prescription on Friday."],
        ["Which medicine do I take?", "What pills was I prescribed?"],
        ["lisinopril", "amlodipine", "losartan", "metoprolol", "hydrochlorothiazide"],
        ["My grandmother takes a lot of vitamins.",
         "The pharmacy changed its opening hours."],
    ),
    "language": (
        ["I've been practising {v} on my commute for a few months.",
         "My {v} tutor says my pronunciation is improving."],
        ["Which foreign tongue am I studying?", "What language am I learning?"],
        ["Portuguese", "Japanese", "Swahili", "Korean", "Dutch", "Turkish", "Greek"],
        ["My daughter's school offers Latin classes now.",
         "The menu at that restaurant was only in French."],
    ),
    "coffee": (
        ["I take my coffee {v} every single morning.",
         "Nothing beats a {v} coffee before work."],
        ["How do I drink my morning brew?", "How do I like my coffee?"],
        ["black with no sugar", "with oat milk", "as a double espresso", "with cardamom",
         "iced with vanilla"],
        ["My colleague drinks five energy drinks a day.",
         "We bought a new kettle for tea."],
    ),
    "team": (
        ["I've supported {v} since I was a kid and never miss a match.",
         "Did you see {v} won last night? Best game of the season."],
        ["Which sports club am I a fan of?", "What team do I cheer for?"],
        ["Celtic", "Boca Juniors", "Ajax", "the Green Bay Packers", "the Toronto Raptors"],
        ["My uncle only watches golf on TV.",
         "The stadium downtown is being renovated."],
    ),
}

FILLER_USER = [
    "Can you help me draft an email to my landlord about the broken heater?",
    "What's a good recipe for a quick weeknight dinner?",
    "Remind me to call the bank tomorrow morning.",
    "Summarise the main points of the article I pasted earlier.",
    "How many cups are in a litre?",
    "Suggest a title for my presentation about quarterly results.",
    "I need a packing list for a three-day conference.",
    "Can you explain how compound interest works?",
    "Write a short birthday message for a coworker.",
    "What should I consider when choosing a new laptop?",
    "Give me three ideas for a rainy afternoon.",
    "Translate 'thank you very much' into a few languages.",
    "How do I get red wine out of a carpet?",
    "Please make my cover letter sound more confident.",
    "What's the difference between a virus and a bacterium?",
    "Plan a simple weekly workout schedule for me.",
    "Thanks, that was really helpful.",
    "Ok, let's continue tomorrow.",
    "Could you shorten that to two sentences?",
    "I have a dentist appointment next Tuesday at three.",
]
FILLER_ASSISTANT = [
    "Sure, here is a draft you can adapt.",
    "Here are a few options you might like.",
    "Good question. In short, it depends on a few factors.",
    "I've noted that for you.",
    "Happy to help, let me know if you want changes.",
    "Here's a shorter version.",
    "That sounds great, enjoy!",
    "Let me break that down step by step.",
]


@dataclass
class Message:
    id: str
    user: str
    session: int
    role: str
    text: str


@dataclass
class Question:
    user: str
    text: str
    evidence: list[str]
    kind: str


@dataclass
class Conversations:
    messages: list[Message] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def generate(users: int = 30, sessions: int = 5, facts_per_user: int = 10,
             seed: int = SEED) -> Conversations:
    """``users`` users, each with ``sessions`` sessions of about 30 messages."""
    rng = random.Random(seed)
    out = Conversations()
    kinds = list(FACTS)
    for u in range(users):
        user = f"person-{u:02d}"
        chosen = rng.sample(kinds, facts_per_user)
        planned: list[tuple[str, str, str, str]] = []  # (kind, text, question, value)
        for kind in chosen:
            facts, asks, values, _ = FACTS[kind]
            value = rng.choice(values)
            planned.append((kind, rng.choice(facts).format(v=value), rng.choice(asks), value))
        distractors = [d for kind in kinds for d in FACTS[kind][3]]
        slots = [rng.randrange(sessions) for _ in planned]
        counter = 0
        for session in range(sessions):
            turns: list[tuple[str, str, str | None]] = []
            for _ in range(12):
                turns.append(("user", rng.choice(FILLER_USER), None))
                turns.append(("assistant", rng.choice(FILLER_ASSISTANT), None))
            for _ in range(3):
                turns.insert(rng.randrange(len(turns) + 1), ("user", rng.choice(distractors), None))
            for (kind, text, _, _), slot in zip(planned, slots, strict=True):
                if slot == session:
                    turns.insert(rng.randrange(len(turns) + 1), ("user", text, kind))
            for role, text, kind in turns:
                message_id = f"{user}-m{counter:04d}"
                counter += 1
                out.messages.append(Message(message_id, user, session, role, text))
                if kind is not None:
                    question = next(q for k, _, q, _ in planned if k == kind)
                    out.questions.append(Question(user, question, [message_id], kind))
    return out


def sample_messages(count: int) -> list[str]:
    """Realistic message texts for end-to-end ingestion timing."""
    texts = [m.text for m in generate(users=max(4, count // 150 + 1)).messages]
    while len(texts) < count:
        texts = texts + texts
    return texts[:count]
