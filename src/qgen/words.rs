//! Word lists and inflection the question rules need: lemmas of verbs (for do-support) and nouns
//! (to match "dogs" with "dog"), plurals, people nouns, and kinds of things whose members can be
//! swapped for an honest "no".

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use foldhash::fast::RandomState;

use crate::filter::pos::Tagger;

/// Nouns that name people: a subject among them is asked about with "who" (and [`KIN`]).
const PEOPLE: [&str; 133] = [
    "man",
    "woman",
    "boy",
    "girl",
    "person",
    "people",
    "child",
    "kid",
    "baby",
    "guy",
    "lady",
    "player",
    "skier",
    "surfer",
    "skateboarder",
    "snowboarder",
    "rider",
    "biker",
    "cyclist",
    "family",
    "couple",
    "crowd",
    "student",
    "worker",
    "chef",
    "cook",
    "officer",
    "soldier",
    "bride",
    "groom",
    "team",
    "fan",
    "athlete",
    "teenager",
    "toddler",
    "aunt",
    "uncle",
    "niece",
    "nephew",
    "gentleman",
    "pitcher",
    "batter",
    "catcher",
    "umpire",
    "tourist",
    "farmer",
    "laborer",
    "labourer",
    "doctor",
    "nurse",
    "teacher",
    "musician",
    "singer",
    "dancer",
    "actor",
    "actress",
    "model",
    "adult",
    "businessman",
    "pedestrian",
    "employee",
    "traveler",
    "traveller",
    "resident",
    "protester",
    "demonstrator",
    "supporter",
    "voter",
    "official",
    "volunteer",
    "firefighter",
    "journalist",
    "photographer",
    "visitor",
    "passenger",
    "shopper",
    "customer",
    "spectator",
    "mourner",
    "police",
    "policeman",
    "migrant",
    "refugee",
    "patient",
    "president",
    "leader",
    "senator",
    "minister",
    "artist",
    "worshipper",
    "rescuer",
    "staff",
    "chancellor",
    "queen",
    "king",
    "prince",
    "princess",
    "duke",
    "duchess",
    "pope",
    "governor",
    "mayor",
    "judge",
    "commuter",
    "reporter",
    "hiker",
    "swimmer",
    "runner",
    "driver",
    "pilot",
    "vendor",
    "merchant",
    "author",
    "writer",
    "scientist",
    "researcher",
    "engineer",
    "wrestler",
    "coach",
    "owner",
    "founder",
    "attendee",
    "inmate",
    "rebel",
    "participant",
    "guest",
    "delegate",
    "activist",
    "technician",
    "competitor",
    "investigator",
    "personnel",
    // "Former US Special Envoy for Ukraine, PERSON, testifies …": missing from
    // `data/lexicon/en-person-nouns.txt`.
    "envoy",
];

/// Kinds of things, after COCO's super-categories, widened with common caption nouns. A yes/no
/// question's "no" swaps a noun for another of its kind: "is the man riding a camel?" when he
/// rides a horse contradicts the caption, where "is there a camel?" would only claim an absence
/// the caption cannot vouch for. No two words of a kind name the same thing ("sofa" is left out:
/// "Is the couch …? — no" of a sofa would contradict nothing).
const KINDS: [&[&str]; 14] = [
    &["man", "woman", "boy", "girl"],
    &[
        "dog", "cat", "horse", "cow", "sheep", "bird", "elephant", "bear", "zebra", "giraffe",
        "goat", "duck",
    ],
    &[
        "car",
        "bus",
        "truck",
        "train",
        "bicycle",
        "motorcycle",
        "boat",
        "airplane",
        "van",
        "taxi",
        "tractor",
    ],
    &[
        "pizza", "sandwich", "cake", "banana", "apple", "orange", "broccoli", "carrot", "donut",
        "salad", "burger", "soup",
    ],
    &["chair", "couch", "bed", "table", "bench", "desk", "shelf"],
    &[
        "laptop",
        "phone",
        "television",
        "keyboard",
        "camera",
        "computer",
        "tablet",
    ],
    &[
        "frisbee",
        "ball",
        "kite",
        "skateboard",
        "surfboard",
        "racket",
        "bat",
        "snowboard",
    ],
    &[
        "hat", "cap", "helmet", "scarf", "jacket", "shirt", "dress", "coat", "tie", "bag",
    ],
    &[
        "cup", "bowl", "plate", "bottle", "glass", "mug", "vase", "jar",
    ],
    // Places, grouped by the preposition they take, so that a swap reads right: "on a beach" /
    // "on a street", "in a park" / "in a forest".
    &["beach", "street", "road", "sidewalk", "bridge", "mountain"],
    &["park", "forest", "garden", "yard", "field", "city"],
    &["kitchen", "bedroom", "bathroom", "office", "restaurant"],
    &["river", "lake", "ocean", "sea", "pool"],
    &["tree", "flower", "plant", "grass", "bush", "rock"],
];

/// Kinds the rules ask about by name (indices into [`KINDS`]).
const ANIMALS: usize = 1;
const FOOD: usize = 3;
const DEVICES: usize = 5;
const SPORTS: usize = 6;
const CLOTHES: usize = 7;
const CONTAINERS: usize = 8;

/// Nouns that name times, not places: "at night" is no answer to "where".
pub const TIMES: [&str; 16] = [
    "night",
    "day",
    "sunset",
    "sunrise",
    "dusk",
    "dawn",
    "morning",
    "evening",
    "afternoon",
    "noon",
    "winter",
    "summer",
    "spring",
    "autumn",
    "fall",
    "weekend",
];

/// Nouns of weather, of occasions and of states, not places: "Where do the people walk? — in the
/// rain", "Where does PERSON participate? — in an interview", "What is the headset on? — display",
/// "What is the airliner in? — flight" are no questions a picture answers. (Snow stays a place:
/// "two dogs playing in the snow" are on it.) Nor is an attack or an accident one is hurt in.
pub const NOT_PLACES: [&str; 33] = [
    // "about 10 feet in diameter": a measure, not a place.
    "diameter",
    "length",
    "height",
    "width",
    "depth",
    "size",
    "rain",
    "snowfall",
    "shower",
    "showers",
    "drizzle",
    "fog",
    "mist",
    "wind",
    "storm",
    "hail",
    "sleet",
    "weather",
    "interview",
    "display",
    "flight",
    "action",
    "trial",
    "deal",
    "election",
    "campaign",
    "debate",
    "vote",
    "attack",
    "attacks",
    "accident",
    "clash",
    "clashes",
];

/// The shapes people stand in ("standing in a group", "in line"), neither a place nor a phrase a
/// verb governs; "at the starting line" is a place.
const FORMATIONS: [&str; 6] = ["group", "groups", "line", "circle", "queue", "formation"];

/// Whether a preposition and its lower-case head noun name a shape people stand in
/// ([`FORMATIONS`] after "in").
pub fn is_formation(preposition: &str, noun: &str) -> bool {
    preposition == "in" && FORMATIONS.contains(&noun)
}

/// The pieces a thing is cut or made into, which are no place ("Where is the bread cut? — into
/// quarters"; "at the old quarter" is one), singular and plural.
pub const PIECES: [&str; 16] = [
    "piece", "pieces", "slice", "slices", "quarter", "quarters", "half", "halves", "chunk",
    "chunks", "cube", "cubes", "wedge", "wedges", "strip", "strips",
];

/// Nouns of a state one is in, neither a place nor anything a verb governs that one could see:
/// "stays in tip-top shape", "in good condition", "in deep thought"; an age ("a man in his
/// twenties") and a colour ("pencil crayons in rainbow hues") are how a thing looks, not where;
/// nor is what people are in together or feel ("four people are in conversation", "in tears").
pub const STATES: [&str; 34] = [
    "shape",
    "condition",
    "thought",
    "conversation",
    "discussion",
    "prayer",
    "tears",
    "mourning",
    "silence",
    "awe",
    "shock",
    "disbelief",
    "unison",
    "teens",
    "twenties",
    "thirties",
    "forties",
    "fifties",
    "sixties",
    "seventies",
    "eighties",
    "nineties",
    "hue",
    "hues",
    "color",
    "colors",
    "colour",
    "colours",
    "shade",
    "shades",
    "tone",
    "tones",
    "tint",
    "tints",
];

/// Prepositions a verb governs ("look at", "pose for", "talk to", "talk on"), for the question of
/// what they govern when it is no place ([`super::parse::Parse::governed`]).
pub const GOVERNING: [&str; 8] = ["at", "for", "to", "on", "in", "into", "over", "through"];

/// Prepositions that place something, for "where" questions.
pub const LOCATIVE: [&str; 33] = [
    "on",
    "in",
    "into",
    "onto",
    "at",
    "near",
    "under",
    "beside",
    "by",
    "behind",
    "above",
    "below",
    "inside",
    "through",
    "down",
    "along",
    "across",
    "outside",
    "over",
    "underneath",
    "beneath",
    "between",
    "among",
    "against",
    "atop",
    "aboard",
    "onboard",
    "around",
    "past",
    "next to",
    "close to",
    "in front of",
    "on top of",
];

/// Nouns for people or things gathered in a shape, which a picture shows through what they
/// gather: "a squad of men", "a long line of people", "a sea of umbrellas".
pub const GATHERINGS: [&str; 13] = [
    "squad",
    "lineup",
    "line",
    "column",
    "queue",
    "fleet",
    "swarm",
    "convoy",
    "procession",
    "array",
    "cluster",
    "mass",
    "sea",
];

/// Occasions people gather for: where something is done ("speaks at a campaign event"), which a
/// "what" question does not ask for.
const OCCASIONS: [&str; 22] = [
    "event",
    "conference",
    "rally",
    "fundraiser",
    "meeting",
    "ceremony",
    "service",
    "summit",
    "hearing",
    "forum",
    "convention",
    "briefing",
    "gala",
    "dinner",
    "reception",
    "session",
    "debate",
    "festival",
    "concert",
    "celebration",
    "memorial",
    "vigil",
];

/// Whether a lower-case noun names a part of the body, as written or as a plural: "a woman with
/// her hands on her belly" has her hands as no thing she holds.
pub fn is_body_part(noun: &str) -> bool {
    matches!(
        &*singular(noun),
        "hand"
            | "arm"
            | "head"
            | "eye"
            | "face"
            | "foot"
            | "leg"
            | "hair"
            | "finger"
            | "belly"
            | "back"
            | "neck"
            | "nose"
            | "mouth"
            | "shoulder"
            | "chin"
            | "ear"
            | "lap"
            | "hip"
            | "knee"
            | "chest"
            | "wrist"
    )
}

/// Whether a lower-case noun names an occasion ([`OCCASIONS`]), as written or as a plural.
pub fn is_occasion(noun: &str) -> bool {
    OCCASIONS.contains(&&*singular(noun))
}

/// Nouns for the meta words of alt text that introduce the real subject: "a photo of a dog".
pub const META: [&str; 16] = [
    "photo",
    "photograph",
    "image",
    "picture",
    "illustration",
    "view",
    "shot",
    "closeup",
    "close-up",
    "portrait",
    "drawing",
    "painting",
    "stock",
    "snapshot",
    "sketch",
    "rendering",
];

/// Nouns that say what kind of picture a caption's picture is, when they open it ("an animated
/// line drawing of …", "a map of …"); not the words every picture is ("image", "picture", "view").
pub const PICTURE_KINDS: [&str; 20] = [
    "photograph",
    "photo",
    "portrait",
    "drawing",
    "painting",
    "sketch",
    "illustration",
    "rendering",
    "map",
    "logo",
    "diagram",
    "chart",
    "screenshot",
    "poster",
    "cartoon",
    "infographic",
    "collage",
    "graph",
    "plot",
    "icon",
];

/// Whether a singular lower-case noun names a picture: one of [`META`] or [`PICTURE_KINDS`] ("a
/// photo of …", "a map of …").
pub fn names_a_picture(noun: &str) -> bool {
    META.contains(&noun) || PICTURE_KINDS.contains(&noun)
}

/// Irregular verbs: past or participle form and lemma.
const IRREGULAR_VERBS: [(&str, &str); 46] = [
    ("sat", "sit"),
    ("stuck", "stick"),
    ("ate", "eat"),
    ("stood", "stand"),
    ("ran", "run"),
    ("went", "go"),
    ("took", "take"),
    ("held", "hold"),
    ("rode", "ride"),
    ("flew", "fly"),
    ("lay", "lie"),
    ("made", "make"),
    ("got", "get"),
    ("saw", "see"),
    ("caught", "catch"),
    ("threw", "throw"),
    ("wore", "wear"),
    ("drove", "drive"),
    ("grew", "grow"),
    ("built", "build"),
    ("hung", "hang"),
    ("left", "leave"),
    ("has", "have"),
    ("had", "have"),
    ("does", "do"),
    ("did", "do"),
    ("brought", "bring"),
    ("bought", "buy"),
    ("found", "find"),
    ("gave", "give"),
    ("won", "win"),
    ("hid", "hide"),
    ("shook", "shake"),
    ("swam", "swim"),
    ("sang", "sing"),
    ("wrote", "write"),
    ("spoke", "speak"),
    ("drew", "draw"),
    ("led", "lead"),
    ("met", "meet"),
    ("kept", "keep"),
    ("slept", "sleep"),
    ("fell", "fall"),
    ("struck", "strike"),
    ("chose", "choose"),
    ("fed", "feed"),
];

/// Whether a lower-case lemma is one of the irregular verbs known here ("hide": the lexicon has
/// no "hided" to tell it is a verb).
pub fn is_irregular_verb(lemma: &str) -> bool {
    IRREGULAR_VERBS.iter().any(|(_, l)| *l == lemma)
}

/// Irregular nouns: plural and singular ("-f"/"-fe" nouns that take "-ves" among them: "How
/// many knifes?" and a "wive" were written before they were listed).
const IRREGULAR_NOUNS: [(&str, &str); 35] = [
    // "-o" nouns whose plural takes "-es" ("How many potatoes are there?", not "potatos").
    ("potatoes", "potato"),
    ("tomatoes", "tomato"),
    ("mangoes", "mango"),
    ("volcanoes", "volcano"),
    ("heroes", "hero"),
    ("knives", "knife"),
    ("wives", "wife"),
    ("housewives", "housewife"),
    ("lives", "life"),
    ("leaves", "leaf"),
    ("shelves", "shelf"),
    ("loaves", "loaf"),
    ("wolves", "wolf"),
    ("calves", "calf"),
    ("halves", "half"),
    ("scarves", "scarf"),
    ("men", "man"),
    ("women", "woman"),
    ("children", "child"),
    ("people", "person"),
    ("feet", "foot"),
    ("teeth", "tooth"),
    ("mice", "mouse"),
    ("geese", "goose"),
    // The same in the plural: "How many aircraft are there?", not "aircrafts".
    ("sheep", "sheep"),
    ("aircraft", "aircraft"),
    ("spacecraft", "spacecraft"),
    ("deer", "deer"),
    ("moose", "moose"),
    ("bison", "bison"),
    ("fish", "fish"),
    ("series", "series"),
    ("species", "species"),
    // A pair in the plural only: "How many scissors are there?", not "scissorses".
    ("scissors", "scissors"),
    ("businessmen", "businessman"),
];

/// Whether the lexicon knows `word`.
fn known(word: &str) -> bool {
    Tagger::english().lookup(word).is_some()
}

/// `text` in lower case, borrowed when it is already (as `str::to_lowercase` would give it).
pub fn lower_case(text: &str) -> Cow<'_, str> {
    let unchanged = |c: char| {
        let mut lower = c.to_lowercase();
        lower.next() == Some(c) && lower.next().is_none()
    };
    let lower = if text.is_ascii() {
        !text.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        text.chars().all(unchanged)
    };
    if lower {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

/// The singular of a lower-case noun ("dogs" → "dog", "men" → "man", "buses" → "bus"); borrowed
/// from `noun` but for "-ies" ("puppies" → "puppy"): the rules ask it of most words they look at.
pub fn singular(noun: &str) -> Cow<'_, str> {
    // A hash lookup, not a scan of the table: `singular` runs on most words of every caption.
    static SINGULARS: LazyLock<HashMap<&str, &str, RandomState>> =
        LazyLock::new(|| IRREGULAR_NOUNS.iter().copied().collect());
    if let Some(s) = SINGULARS.get(noun) {
        return Cow::Borrowed(s);
    }
    if let Some(stem) = noun.strip_suffix("ies")
        && noun.len() > 4
    {
        return Cow::Owned(format!("{stem}y"));
    }
    for suffix in ["ches", "shes", "sses", "xes", "zes", "uses"] {
        if noun.ends_with(suffix) {
            return Cow::Borrowed(&noun[..noun.len() - 2]);
        }
    }
    match noun.strip_suffix('s') {
        Some(stem) if !noun.ends_with("ss") && !noun.ends_with("us") && stem.len() > 1 => {
            Cow::Borrowed(stem)
        }
        _ => Cow::Borrowed(noun),
    }
}

/// The plural of a lower-case singular noun.
pub fn plural(noun: &str) -> String {
    if let Some((p, _)) = IRREGULAR_NOUNS.iter().find(|(_, s)| *s == noun) {
        return p.to_string();
    }
    // "policeman", "fisherman", "snowman": "-men"; but "German", "shaman" take "-s" (and
    // "human", whose stem is too short).
    if let Some(stem) = noun.strip_suffix("man")
        && stem.len() > 2
        && !matches!(
            noun,
            "german" | "shaman" | "talisman" | "caiman" | "ottoman"
        )
    {
        return format!("{stem}men");
    }
    if noun.ends_with('y')
        && !noun.ends_with("ay")
        && !noun.ends_with("ey")
        && !noun.ends_with("oy")
    {
        return format!("{}ies", &noun[..noun.len() - 1]);
    }
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|s| noun.ends_with(s))
    {
        return format!("{noun}es");
    }
    format!("{noun}s")
}

/// The lemma of a lower-case "-ing" form ("standing" → "stand", "running" → "run", "lying" →
/// "lie"), if it can be told.
pub fn participle_lemma(verb: &str) -> Option<String> {
    let stem = verb.strip_suffix("ing")?;
    let mut first = Lemma::default();
    // "lying" → "lie" (not "lye"), "running" → "run".
    if let Some(s) = stem.strip_suffix('y') {
        first.try_joined(s, "ie");
    }
    first.try_stem(stem);
    first.try_joined(stem, "e");
    let b = stem.as_bytes();
    if b.len() > 2 && b[b.len() - 1] == b[b.len() - 2] {
        first.try_stem(&stem[..stem.len() - 1]);
    }
    first.found
}

/// The first known lemma of a word's candidates, tried in order without building the ones after
/// it (these run on most words of every caption and question).
#[derive(Default)]
struct Lemma {
    found: Option<String>,
    buffer: String,
}

impl Lemma {
    /// Try a candidate that is a part of the word.
    fn try_stem(&mut self, stem: &str) {
        if self.found.is_none() && stem.len() > 1 && known(stem) {
            self.found = Some(stem.to_string());
        }
    }

    /// Try a stem with a new ending ("lie" of "ly" + "ie").
    fn try_joined(&mut self, stem: &str, ending: &str) {
        if self.found.is_some() {
            return;
        }
        self.buffer.clear();
        self.buffer.push_str(stem);
        self.buffer.push_str(ending);
        if self.buffer.len() > 1 && known(&self.buffer) {
            self.found = Some(std::mem::take(&mut self.buffer));
        }
    }
}

/// Whether the lower-case `word` is the regular verb `lemma` or one of its forms: "-s", "-es",
/// "-ed", "-d", "-ing", "-n", with a final "e" dropped ("stares", "staring", "shown"). Unlike
/// [`verb_lemma`], it knows the -ing form.
pub fn inflects(word: &str, lemma: &str) -> bool {
    let stem = lemma.trim_end_matches('e');
    word == lemma
        || word
            .strip_prefix(stem)
            .is_some_and(|ending| matches!(ending, "s" | "es" | "ed" | "d" | "ing" | "n"))
}

/// Verbs of how one looks, which an adjective completes as it completes a copula ("The boy looks
/// happy", "The players look tired").
pub const LOOKS: [&str; 3] = ["look", "appear", "seem"];

/// Verbs whose "at" names what they are aimed at, whatever it is ("looking at a painting").
pub const LOOKING_AT: [&str; 7] = ["look", "stare", "gaze", "glance", "peer", "point", "glare"];

/// The lemma of a lower-case verb in any form: its -s or past form's ([`verb_lemma`]), its -ing
/// form's ([`participle_lemma`]), else the word itself ("showing" → "show", "held" → "hold").
pub fn any_lemma(verb: &str) -> String {
    verb_lemma(verb)
        .or_else(|| participle_lemma(verb))
        .unwrap_or_else(|| verb.to_string())
}

/// The lemma of a lower-case verb in its -s or past form ("catches" → "catch", "sat" → "sit"),
/// if it can be told.
pub fn verb_lemma(verb: &str) -> Option<String> {
    if let Some((_, l)) = IRREGULAR_VERBS.iter().find(|(f, _)| *f == verb) {
        return Some(l.to_string());
    }
    let mut first = Lemma::default();
    if let Some(stem) = verb.strip_suffix("ies") {
        first.try_joined(stem, "y");
    }
    if let Some(stem) = verb.strip_suffix("ied") {
        first.try_joined(stem, "y");
    }
    // "-es" is an ending of its own only after a sibilant or "o" ("catches", "goes"); "rides" is
    // "ride" + "s".
    if let Some(stem) = verb.strip_suffix("es")
        && ["ch", "sh", "ss", "x", "z", "o"]
            .iter()
            .any(|e| stem.ends_with(e))
    {
        first.try_stem(stem);
    }
    if let Some(stem) = verb.strip_suffix("ed") {
        first.try_stem(stem);
        first.try_joined(stem, "e");
        // "stopped" → "stop"
        let b = stem.as_bytes();
        if b.len() > 2 && b[b.len() - 1] == b[b.len() - 2] {
            first.try_stem(&stem[..stem.len() - 1]);
        }
    }
    if let Some(stem) = verb.strip_suffix('s') {
        first.try_stem(stem);
    }
    first.found
}

/// Whether a lower-case noun names something worn or held, which "in" and "on" do not place ("in
/// a suit", "on a cell phone", "puffs on a cigarette").
pub fn is_worn_or_held(noun: &str) -> bool {
    let s = singular(noun);
    matches!(kind_of(&s), Some(CLOTHES | DEVICES))
        || matches!(
            &*s,
            "phone"
                | "suit"
                | "uniform"
                | "costume"
                | "glasses"
                | "headphones"
                | "cigarette"
                | "cigar"
        )
        || GARMENTS.contains(&&*s)
}

/// Garments the kinds of things leave out: worn, never placed ("in champagne frock"), and never
/// counted (a zero count would ask of clothes a picture of people may well show).
pub const GARMENTS: [&str; 8] = [
    "frock", "gown", "bikini", "tutu", "blouse", "outfit", "footwear", "cutoff",
];

/// Whether a lower-case noun names a thing that "at" aims at rather than places at ("swings a
/// bat at a ball", "looking at the camera"): people, animals, food, devices, sports gear, clothes,
/// containers.
pub fn is_aimed_at(noun: &str) -> bool {
    let s = singular(noun);
    is_person_noun(&s)
        || matches!(
            kind_of(&s),
            Some(ANIMALS | FOOD | DEVICES | SPORTS | CLOTHES | CONTAINERS)
        )
}

/// Verbs whose subject is a picture that shows their object ("a table showing …", "an engraving
/// depicting …").
pub const DEPICTING: [&str; 6] = [
    "show",
    "depict",
    "illustrate",
    "feature",
    "portray",
    "represent",
];

/// Verbs of what people and animals do in photographs, as lemmas: a word among them that the
/// lexicon tags as a noun may be a caption's verb ("a pedestrian walks through snow").
const CAPTION_VERBS: [&str; 110] = [
    "walk",
    "stand",
    "sit",
    "speak",
    "converse",
    "answer",
    "wait",
    "pose",
    "look",
    "play",
    "run",
    "ride",
    "watch",
    "gather",
    "march",
    "rest",
    "swim",
    "lie",
    "lean",
    "jump",
    "climb",
    "dance",
    "sing",
    "work",
    "talk",
    "eat",
    "drink",
    "smile",
    "hold",
    "carry",
    "cross",
    "race",
    "fly",
    "float",
    "hang",
    "pass",
    "rally",
    "protest",
    "celebrate",
    "cook",
    "read",
    "paint",
    "perform",
    "pray",
    "kneel",
    "cheer",
    "wave",
    "point",
    "push",
    "pull",
    "kick",
    "throw",
    "catch",
    "leave",
    "arrive",
    "attend",
    "address",
    "greet",
    "hug",
    "kiss",
    "shake",
    "visit",
    "enter",
    "drive",
    "guard",
    "patrol",
    "sleep",
    "graze",
    "hike",
    "row",
    "sail",
    "paddle",
    "dive",
    "practice",
    "compete",
    "score",
    "win",
    "tackle",
    "help",
    "rescue",
    "search",
    "clean",
    "sweep",
    "build",
    "repair",
    "sell",
    "serve",
    "pour",
    "wear",
    "use",
    "inspect",
    "adjust",
    "remove",
    "display",
    "meet",
    "laugh",
    "vote",
    "testify",
    "applaud",
    "spray",
    "slice",
    "cut",
    // "PERSON boards Air Force One": the lexicon knows "boards" first as a plural noun.
    "board",
    "exit",
    // "Police in riot gear move through a cloud of smoke", "Demonstrators from … clash with
    // police".
    "move",
    "clash",
    // "People wearing face masks travel on a train", "Shoppers queue outside a store".
    "travel",
    "commute",
    "queue",
    "shop",
];

/// Whether a lower-case lemma is a verb of [`CAPTION_VERBS`].
pub fn is_caption_verb(lemma: &str) -> bool {
    CAPTION_VERBS.contains(&lemma)
}

/// People's titles as written abbreviated ("Sen.", "Gov.", "Dr."), without their full stop (the
/// tokenizer and the reading take it off).
const PERSON_TITLES: [&str; 17] = [
    "mr", "mrs", "ms", "dr", "gov", "rep", "sen", "pres", "gen", "lt", "col", "capt", "sgt", "cpl",
    "maj", "adm", "prof",
];

/// Whether a lower-case word is an abbreviated title of a person ([`PERSON_TITLES`]): the name
/// after it is a person's ("Sen. Rand Paul", a name the filter's gazetteer does not know).
pub fn is_person_title(lower: &str) -> bool {
    PERSON_TITLES.contains(&lower)
}

/// Verbs whose past is their bare form ("PERSON let his son run loose"), which the lexicon knows
/// first as the bare verb: after a name, only the past.
pub const INVARIANT_PASTS: [&str; 8] =
    ["let", "put", "set", "cut", "hit", "shut", "spread", "cast"];

/// Verbs (lemmas) of what only people do where a camera sees it: a name they follow is a
/// person's ("LeBron James reacts …"). Not "celebrate", "dance" or "sing": a company celebrates
/// an anniversary, a bird dances and sings.
const PERSON_ACTS: [&str; 17] = [
    "react", "smile", "pose", "laugh", "grin", "gesture", "shout", "kiss", "hug", "frown", "wink",
    "yell", "weep", "applaud", "shrug",
    // Sport's and stage's acts: "LeBron James dunks during …", "… Doobie Brothers perform".
    "dunk", "perform",
];

/// Whether a verb's lemma is one of [`PERSON_ACTS`].
pub fn is_person_act(lemma: &str) -> bool {
    PERSON_ACTS.contains(&lemma)
}

/// Verbs (lemmas) of a body's posture or of what hands do, which a caption puts right after a
/// name in the present participle ("Kitty Wells holding a guitar and looking at the camera"); a
/// headline says it with a finite verb of a company or a country ("Apple holds an event", "Fed
/// holds rates"), so only the participle marks a person.
const POSTURES: [&str; 13] = [
    "hold", "carry", "wear", "sit", "stand", "kneel", "lean", "look", "stare", "gaze", "wave",
    "ride", "walk",
];

/// Whether a verb's lemma is one of [`POSTURES`].
pub fn is_posture(lemma: &str) -> bool {
    POSTURES.contains(&lemma)
}

/// Whether a noun as written names people: a people noun, or a demonym in the plural
/// ("Zimbabweans", "Americans").
pub fn names_people(word: &str) -> bool {
    is_person_noun(&word.to_lowercase())
        || (word.starts_with(char::is_uppercase) && word.ends_with("ans") && word.len() > 5)
}

/// Family, partners and friends, whom tabloid captions name beside their subject (not "mum":
/// "keep mum on the rumours"): people nouns that say whose someone is, not what one would see
/// ("PERSON's daughter Anja" asks no "Is there a daughter?").
const KIN: [&str; 26] = [
    "father",
    "mother",
    "son",
    "daughter",
    "friend",
    "husband",
    "wife",
    "spouse",
    "girlfriend",
    "boyfriend",
    "fiance",
    "fiancee",
    "beau",
    "partner",
    "parent",
    "sister",
    "brother",
    "sibling",
    "twin",
    "mom",
    "dad",
    "grandmother",
    "grandfather",
    "grandchild",
    "granddaughter",
    "grandson",
];

/// A word list of `data/lexicon/` (one word per line), as a set.
pub(super) type WordSet = LazyLock<HashSet<&'static str, RandomState>>;

/// Nouns whose most frequent sense is a kind of person, after WordNet 3.0, with [`PEOPLE`] and
/// [`KIN`] (`data/lexicon/en-person-nouns.txt`; `scripts/fetch_lexicon.sh` says which WordNet
/// nouns it leaves out and why): "villager", "astronaut", "paramedic". [`PEOPLE`] alone missed
/// most of the people news photographs show by their trade.
static PERSON_NOUNS: WordSet = LazyLock::new(|| {
    include_str!("../../data/lexicon/en-person-nouns.txt")
        .lines()
        .chain(PEOPLE)
        .chain(KIN)
        .collect()
});

/// Whether a lower-case noun names people: one of [`PEOPLE`], [`KIN`] or [`PERSON_NOUNS`], or a
/// "-man"/"-woman" compound ("fisherman", "policewomen").
pub fn is_person_noun(noun: &str) -> bool {
    let people = &*PERSON_NOUNS;
    if people.contains(noun) {
        return true;
    }
    let s = singular(noun);
    // "congressmen", "firemen": a "-man" noun's plural, which `singular` leaves as it is.
    let man = s
        .strip_suffix("men")
        .filter(|stem| stem.len() > 2)
        .map(|stem| format!("{stem}man"));
    let s = man.as_deref().unwrap_or(&s);
    people.contains(s)
        || (s.len() > 5
            && (s.ends_with("man") || s.ends_with("woman"))
            && Tagger::english().lookup(s).is_some())
}

/// The kind (index into the kinds table) of a lower-case singular noun.
fn kind_of(noun: &str) -> Option<usize> {
    KINDS.iter().position(|k| k.contains(&noun))
}

/// Whether a lower-case singular noun says whose someone is ([`KIN`]): "daughter", "friend".
pub fn is_kin(noun: &str) -> bool {
    KIN.contains(&noun)
}

/// People are swapped for the other sex at the same age: a "young woman" is no "girl".
const PEOPLE_SWAPS: [(&str, &str); 4] = [
    ("man", "woman"),
    ("woman", "man"),
    ("boy", "girl"),
    ("girl", "boy"),
];

/// Another noun of `noun`'s kind, none of `avoid`, picked by `seed` (deterministic).
pub fn swap_noun(noun: &str, avoid: &[String], seed: u64) -> Option<&'static str> {
    if let Some((_, other)) = PEOPLE_SWAPS.iter().find(|(n, _)| *n == noun) {
        return (!avoid.iter().any(|a| a == other)).then_some(*other);
    }
    let kind = KINDS[kind_of(noun)?];
    let options: Vec<&str> = kind
        .iter()
        .copied()
        .filter(|w| *w != noun && !avoid.iter().any(|a| a == w))
        .collect();
    (!options.is_empty()).then(|| options[(seed % options.len() as u64) as usize])
}

/// Kinds of place a proper noun before them names ("Kandahar province").
pub const PLACE_KINDS: [&str; 24] = [
    "headquarters",
    "province",
    "county",
    "district",
    "region",
    "state",
    "city",
    "town",
    "village",
    "capital",
    "court",
    "courthouse",
    "campus",
    "airport",
    "station",
    "stadium",
    "arena",
    "university",
    "college",
    "hospital",
    "hotel",
    "restaurant",
    "store",
    "office",
];

/// Words that close the name of an organisation or a building besides [`PLACE_KINDS`]: "the
/// Packard Motor Car Company", "the Rocket Combustion Laboratory". A caption capitalises such a
/// name as a headline capitalises its every word.
const INSTITUTIONS: [&str; 28] = [
    "agency",
    "department",
    "administration",
    "association",
    "foundation",
    "council",
    "commission",
    "ministry",
    "company",
    "corporation",
    "museum",
    "laboratory",
    "center",
    "centre",
    "institute",
    "institution",
    "church",
    "cathedral",
    "school",
    "library",
    "bridge",
    "palace",
    "castle",
    "hall",
    "theater",
    "theatre",
    "gallery",
    "observatory",
];

/// Whether a lower-case word closes a place's or an organisation's name ([`PLACE_KINDS`],
/// [`INSTITUTIONS`]).
pub fn closes_a_name(lower: &str) -> bool {
    PLACE_KINDS.contains(&lower) || INSTITUTIONS.contains(&lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_of_every_trade_are_people() {
        for noun in [
            "villager",
            "astronauts",
            "paramedic",
            "campaigner",
            "guard",
            "fighters",
        ] {
            assert!(is_person_noun(noun), "{noun}");
        }
        // Not what WordNet lists first when the concordance never saw it ("jumper", "whale"),
        // nor a person less often than a thing ("ward"), a people's name ("Bornean"), the
        // web's own sense ("avatar", "speaker") or an abbreviation ("da").
        for noun in [
            "jumper", "whale", "ward", "spirit", "bornean", "avatar", "speaker", "da",
        ] {
            assert!(!is_person_noun(noun), "{noun}");
        }
    }

    #[test]
    fn nouns_in_f_take_ves() {
        assert_eq!(plural("knife"), "knives");
        assert_eq!(singular("knives"), "knife");
        assert_eq!(singular("wives"), "wife");
        assert!(is_person_noun("wives"));
    }

    #[test]
    fn inflects() {
        assert_eq!(singular("dogs"), "dog");
        assert_eq!(singular("buses"), "bus");
        assert_eq!(singular("benches"), "bench");
        assert_eq!(singular("puppies"), "puppy");
        assert_eq!(singular("men"), "man");
        assert_eq!(singular("grass"), "grass");
        assert_eq!(plural("bus"), "buses");
        assert_eq!(plural("puppy"), "puppies");
        assert_eq!(plural("toy"), "toys");
        assert_eq!(plural("woman"), "women");
        assert_eq!(plural("potato"), "potatoes");
        assert_eq!(plural("aircraft"), "aircraft");
        assert_eq!(plural("deer"), "deer");
        assert_eq!(plural("policeman"), "policemen");
        assert_eq!(plural("snowman"), "snowmen");
        assert_eq!(plural("shaman"), "shamans");
        assert_eq!(singular("species"), "species");
        assert_eq!(plural("scissors"), "scissors");
        assert_eq!(singular("scissors"), "scissors");
        assert_eq!(singular("tomatoes"), "tomato");
        assert_eq!(verb_lemma("catches").as_deref(), Some("catch"));
        assert_eq!(verb_lemma("plays").as_deref(), Some("play"));
        assert_eq!(verb_lemma("carries").as_deref(), Some("carry"));
        assert_eq!(verb_lemma("rides").as_deref(), Some("ride"));
        assert_eq!(verb_lemma("sat").as_deref(), Some("sit"));
        assert_eq!(verb_lemma("parked").as_deref(), Some("park"));
        assert_eq!(verb_lemma("stopped").as_deref(), Some("stop"));
        assert_eq!(participle_lemma("standing").as_deref(), Some("stand"));
        assert_eq!(participle_lemma("running").as_deref(), Some("run"));
        assert_eq!(participle_lemma("lying").as_deref(), Some("lie"));
        assert_eq!(participle_lemma("arriving").as_deref(), Some("arrive"));
    }

    #[test]
    fn swaps_within_a_kind() {
        let swapped = swap_noun("horse", &["dog".into()], 7).unwrap();
        assert!(kind_of(swapped) == kind_of("horse") && swapped != "horse" && swapped != "dog");
        assert_eq!(swap_noun("idea", &[], 1), None);
    }
}
