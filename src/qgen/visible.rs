//! Things one can see in a photograph, by kind: the nouns a zero count may ask about, and what
//! tells a description from a headline.
//!
//! A "how many" question answered 0 is only worth training on when it asks about something a
//! photograph could show and the caption does not name it under another word. Counting nouns
//! borrowed from the stream as they come took "Mirage" (a car's name), "years" and "finals" on
//! real alt text; here a zero count must name a kind of thing in [`KINDS`], and is never asked of
//! a caption naming the same thing, a synonym ([`SYNONYMS`]), its kind ("animal" for "dog") or a
//! member of it ("dog" for "animal"). The lists are ours, after COCO's 80 categories and their
//! super-categories, widened with the nouns of news and web photos.

use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, OnceLock};

use foldhash::fast::RandomState;

use super::words::{GARMENTS, WordSet, is_person_noun, singular};

/// Nouns whose most frequent sense is a physical thing, after WordNet 3.0
/// (`data/lexicon/en-concrete-nouns.txt`, made by `scripts/fetch_lexicon.sh`).
static CONCRETE_NOUNS: WordSet = LazyLock::new(|| {
    include_str!("../../data/lexicon/en-concrete-nouns.txt")
        .lines()
        .collect()
});

/// Nouns whose most frequent sense is an event or a process, after WordNet 3.0
/// (`data/lexicon/en-happening-nouns.txt`, made by `scripts/fetch_lexicon.sh`): "flow",
/// "accretion", "eruption".
static HAPPENING_NOUNS: WordSet = LazyLock::new(|| {
    include_str!("../../data/lexicon/en-happening-nouns.txt")
        .lines()
        .collect()
});

/// Whether a singular lower-case noun names an event or a process ([`HAPPENING_NOUNS`]): no
/// thing, but what a picture can show happening to things.
pub fn is_happening(noun: &str) -> bool {
    HAPPENING_NOUNS.contains(noun)
}

/// Countable things, by kind; the first word of each list names the kind.
const KINDS: [&[&str]; 14] = [
    &[
        "animal",
        "dog",
        "cat",
        "horse",
        "cow",
        "sheep",
        "bird",
        "elephant",
        "bear",
        "zebra",
        "giraffe",
        "goat",
        "duck",
        "pig",
        "chicken",
        "deer",
        "lion",
        "tiger",
        "monkey",
        "rabbit",
        "squirrel",
        "fish",
        "puppy",
        "kitten",
        "swan",
        "goose",
        "pigeon",
        "seagull",
        "camel",
        "donkey",
        "fox",
        "wolf",
        "owl",
        "eagle",
        "penguin",
        "dolphin",
        "whale",
        "butterfly",
    ],
    &[
        "vehicle",
        "car",
        "bus",
        "truck",
        "train",
        "bicycle",
        "bike",
        "motorcycle",
        "motorbike",
        "boat",
        "ship",
        "airplane",
        "plane",
        "aircraft",
        "jet",
        "helicopter",
        "van",
        "taxi",
        "cab",
        "tractor",
        "scooter",
        "tram",
        "ambulance",
        "canoe",
        "kayak",
        "yacht",
        "trailer",
        "jeep",
        "suv",
        "limousine",
        "wagon",
        "cart",
        "carriage",
    ],
    &[
        "furniture",
        "chair",
        "couch",
        "sofa",
        "bed",
        "table",
        "bench",
        "desk",
        "shelf",
        "stool",
        "cabinet",
        "dresser",
        "lamp",
        "mirror",
        "pillow",
        "rug",
    ],
    &[
        "device",
        "laptop",
        "phone",
        "cellphone",
        "smartphone",
        "television",
        "tv",
        "keyboard",
        "camera",
        "computer",
        "tablet",
        "monitor",
        "screen",
        "microphone",
        "headphone",
        "clock",
        "watch",
        "radio",
    ],
    &[
        "toy",
        "frisbee",
        "ball",
        "kite",
        "skateboard",
        "surfboard",
        "racket",
        "bat",
        "snowboard",
        "ski",
        "glove",
        "balloon",
        "doll",
        "teddy",
        "trophy",
        "medal",
    ],
    &[
        "clothing",
        "hat",
        "cap",
        "helmet",
        "scarf",
        "jacket",
        "shirt",
        "dress",
        "coat",
        "tie",
        "suit",
        "uniform",
        "shoe",
        "boot",
        "sneaker",
        "glasses",
        "sunglasses",
        "mask",
        "vest",
        "sweater",
        "skirt",
        "apron",
        "backpack",
        "bag",
        "handbag",
        "purse",
        "suitcase",
        "umbrella",
    ],
    &[
        "container",
        "cup",
        "bowl",
        "plate",
        "bottle",
        "glass",
        "mug",
        "vase",
        "jar",
        "box",
        "basket",
        "bucket",
        "pot",
        "pan",
        "tray",
        "barrel",
        "crate",
    ],
    &[
        "food",
        "pizza",
        "sandwich",
        "cake",
        "banana",
        "apple",
        "orange",
        "carrot",
        "donut",
        "burger",
        "hot dog",
        "egg",
        "cookie",
        "pie",
        "lemon",
        "tomato",
        "potato",
        "strawberry",
        "pumpkin",
        "loaf",
    ],
    &[
        "utensil",
        "fork",
        "knife",
        "spoon",
        "chopstick",
        "scissors",
        "toothbrush",
        "pen",
        "pencil",
        "brush",
        "hammer",
        "ladder",
        "rope",
        "shovel",
    ],
    &[
        "plant",
        "tree",
        "flower",
        "bush",
        "palm",
        "rose",
        "sunflower",
        "tulip",
        "cactus",
        "leaf",
    ],
    &[
        "building",
        "house",
        "tower",
        "church",
        "tent",
        "barn",
        "skyscraper",
        "cabin",
        "castle",
        "hut",
        "lighthouse",
        "windmill",
        "shed",
        "garage",
        "bridge",
        "fountain",
        "statue",
        "monument",
    ],
    &[
        "sign",
        "flag",
        "banner",
        "poster",
        "billboard",
        "placard",
        "signboard",
        "streetlight",
        "light",
        "lantern",
        "candle",
        "traffic light",
        "hydrant",
        "fire hydrant",
        "parking meter",
    ],
    &[
        "fixture",
        "window",
        "door",
        "fence",
        "gate",
        "pole",
        "wall",
        "stair",
        "column",
        "barricade",
        "barrier",
        "cone",
        "chimney",
        "roof",
    ],
    &[
        "book",
        "newspaper",
        "magazine",
        "map",
        "painting",
        "card",
        "letter",
        "ticket",
        "key",
        "coin",
        "wheel",
        "tire",
        "guitar",
        "piano",
        "drum",
        "violin",
    ],
];

/// Words of one thing: a zero count of one is never asked of a caption naming another.
const SYNONYMS: [&[&str]; 15] = [
    &["car", "automobile", "suv", "jeep"],
    &["bicycle", "bike"],
    &["motorcycle", "motorbike", "scooter"],
    &["airplane", "plane", "aircraft", "jet", "airliner"],
    &["boat", "ship", "yacht", "vessel", "canoe", "kayak"],
    &["taxi", "cab"],
    &["television", "tv", "screen", "monitor"],
    &["phone", "cellphone", "smartphone", "telephone"],
    &["couch", "sofa"],
    &["cup", "mug", "glass"],
    &["bag", "handbag", "purse", "backpack", "suitcase"],
    &["hat", "cap", "helmet"],
    &["dog", "puppy"],
    &["cat", "kitten"],
    &[
        "sign",
        "banner",
        "poster",
        "billboard",
        "placard",
        "signboard",
    ],
];

/// Scenes and stuff one can see but not count: "snow", "a street", "the sky".
const SCENES: [&str; 61] = [
    "sky",
    "cloud",
    "sun",
    "moon",
    "star",
    "snow",
    "rain",
    "fog",
    "water",
    "sea",
    "ocean",
    "lake",
    "river",
    "beach",
    "sand",
    "grass",
    "field",
    "forest",
    "mountain",
    "hill",
    "valley",
    "desert",
    "street",
    "road",
    "sidewalk",
    "highway",
    "path",
    "trail",
    "park",
    "garden",
    "yard",
    "city",
    "town",
    "village",
    "square",
    "market",
    "crowd",
    "room",
    "kitchen",
    "bedroom",
    "bathroom",
    "office",
    "restaurant",
    "shop",
    "store",
    "stage",
    "stadium",
    "court",
    "airport",
    "station",
    "platform",
    "runway",
    "smoke",
    "fire",
    "ice",
    "shadow",
    "sunset",
    "sunrise",
    "tape",
    // A grave's first sense in WordNet is a death ("went to his grave"), a memorial's a
    // writing; in a photograph they are places one stands at.
    "grave",
    "memorial",
];

/// The word lists as hash tables: a caption's every word is looked up, and a borrowed zero count
/// is checked against every noun of its caption.
struct Index {
    kind: HashMap<&'static str, usize, RandomState>,
    synonyms: HashMap<&'static str, usize, RandomState>,
    scenes: HashSet<&'static str, RandomState>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| Index {
        kind: KINDS
            .iter()
            .enumerate()
            .flat_map(|(k, words)| words.iter().map(move |w| (*w, k)))
            .collect(),
        synonyms: SYNONYMS
            .iter()
            .enumerate()
            .flat_map(|(k, words)| words.iter().map(move |w| (*w, k)))
            .collect(),
        scenes: SCENES.iter().copied().collect(),
    })
}

/// The kind (index into [`KINDS`]) of a singular lower-case noun.
fn kind_of(noun: &str) -> Option<usize> {
    index().kind.get(noun).copied()
}

/// Whether a singular lower-case noun names an animal.
pub fn is_animal(noun: &str) -> bool {
    kind_of(noun) == Some(0)
}

/// Whether a singular lower-case noun names a vehicle.
pub fn is_vehicle(noun: &str) -> bool {
    kind_of(noun) == Some(1)
}

/// Things made to be seen whose most frequent WordNet sense is not a physical thing ("logo" is a
/// symbol, "buoy" a signal, "drawing" a representation, "folder" and "brochure" writings), so
/// the concrete-noun list lacks them (those of [`KINDS`], such as "sign" or "trophy", are visible
/// already).
const SIGNS: [&str; 19] = [
    "logo",
    "signpost",
    "insignia",
    "badge",
    "drawing",
    "chart",
    "portrait",
    "buoy",
    "arrow",
    "label",
    "cartoon",
    "signage",
    "folder",
    "brochure",
    "flyer",
    "pamphlet",
    "postcard",
    "diploma",
    "certificate",
];

/// Whether a singular lower-case noun names something a photograph could show: a thing of
/// [`KINDS`], a scene, a person, a noun whose most frequent sense in WordNet is a physical thing,
/// or one of [`SIGNS`].
pub fn is_visible(noun: &str) -> bool {
    kind_of(noun).is_some()
        || index().scenes.contains(noun)
        || CONCRETE_NOUNS.contains(noun)
        || SIGNS.contains(&noun)
        || is_person_noun(noun)
}

/// Whether a lower-case noun, as written or as its singular, names something a photograph could
/// show ([`is_visible`]): "acropolis" is no plural of an "acropoli".
pub fn is_visible_word(lower: &str) -> bool {
    is_visible(lower) || is_visible(&singular(lower))
}

/// Whether a singular lower-case noun names a scene (sky, sea, street …) rather than a thing.
pub fn is_scene(noun: &str) -> bool {
    index().scenes.contains(noun)
}

/// Whether a singular lower-case noun is one of the things, scenes and signs listed here (not
/// only WordNet's physical things, which take in "musk" and "trump"): the names
/// (`crate::filter::entities`) tell a caption's subject from a name with it.
pub fn is_listed_thing(noun: &str) -> bool {
    kind_of(noun).is_some() || index().scenes.contains(noun) || SIGNS.contains(&noun)
}

/// The things of [`KINDS`] (not the kinds' own names), in their order: the fixed vocabulary a
/// zero count falls back on where the stream has offered no noun a caption may borrow.
pub fn things() -> &'static [&'static str] {
    static THINGS: OnceLock<Vec<&'static str>> = OnceLock::new();
    THINGS.get_or_init(|| KINDS.iter().flat_map(|k| k[1..].iter().copied()).collect())
}

/// Whether "how many" may ask about the singular lower-case noun `noun`: a countable visible
/// thing, not a person (people are counted by the caption's own numbers only).
pub fn is_countable(noun: &str) -> bool {
    kind_of(noun).is_some()
}

/// Things in the background of most photographs taken outdoors or in a room, which a caption
/// leaves unnamed: "How many trees are there? — 0" of "Pedestrians crossing a wide street" or
/// "How many flags? — 0" of a rally is a guess, not an answer. No zero count asks about them.
const BACKGROUND: [&str; 15] = [
    "tree",
    "building",
    "house",
    "flag",
    "sign",
    "window",
    "cloud",
    "pole",
    "fence",
    "bush",
    "light",
    "car",
    "plant",
    "wall",
    "skyscraper",
];

/// Whether a singular lower-case noun names a thing of [`BACKGROUND`] or its kind.
pub fn is_background(noun: &str) -> bool {
    in_list_or_synonym(noun, &BACKGROUND)
}

/// Whether a singular lower-case noun is in `list` or is a synonym ([`SYNONYMS`]) of a word in it.
fn in_list_or_synonym(noun: &str, list: &[&str]) -> bool {
    list.contains(&noun)
        || index()
            .synonyms
            .get(noun)
            .is_some_and(|&k| SYNONYMS[k].iter().any(|s| list.contains(s)))
}

/// Whether a singular lower-case noun names clothing (or what people carry): what the people of a
/// picture may wear whether or not its caption says so.
pub fn is_clothing(noun: &str) -> bool {
    kind_of(noun).is_some_and(|k| KINDS[k][0] == "clothing") || GARMENTS.contains(&noun)
}

/// Things around people at events and in public places — the press's cameras and microphones,
/// barricades, balloons, banners, seats, statues — which a caption naming people leaves unnamed:
/// "How many cameras? — 0" of a meeting in the Oval Office, "How many balloons? — 0" of supporters
/// cheering on election night, "How many monuments? — 0" of people walking through Union Square
/// were judged wrong (issue 29's labels). So are what people wear or carry unremarked: "How many
/// glasses? — 0" of a candidate speaking, "How many smartphones? — 0" of a senator speaking with
/// the media (stop 71's labels). Synonyms count ([`is_around_people`]): a smartphone is a phone,
/// a cup or a mug a glass.
const AROUND_PEOPLE: [&str; 14] = [
    "glass",
    "phone",
    "camera",
    "microphone",
    "barricade",
    "barrier",
    "balloon",
    "banner",
    "podium",
    "bench",
    "chair",
    "seat",
    "statue",
    "monument",
];

/// Whether a singular lower-case noun names a thing of [`AROUND_PEOPLE`] or a synonym of one.
pub fn is_around_people(noun: &str) -> bool {
    in_list_or_synonym(noun, &AROUND_PEOPLE)
}

/// Whether a caption naming `named` (singular, lower case) could show a `counted`: the same word,
/// a compound ending in it ("iphone", "smartphone" for "phone"), a synonym, the kind of the
/// other, or a member of its kind when `counted` names the kind.
pub fn overlaps(counted: &str, named: &str) -> bool {
    if named.ends_with(counted) && (named.len() == counted.len() || counted.len() >= 4) {
        return true;
    }
    let index = index();
    if let (Some(a), Some(b)) = (index.synonyms.get(counted), index.synonyms.get(named))
        && a == b
    {
        return true;
    }
    // "How many keyboards? — 0" of "a girl using a computer": the whole shows its parts; "How
    // many dresses? — 0" of a toast: a setting shows what it is made of.
    if SHOWN_UNNAMED
        .iter()
        .any(|(named_as, shown)| named_as.contains(&named) && shown.contains(&counted))
    {
        return true;
    }
    match (kind_of(counted), kind_of(named)) {
        // "how many animals" of a dog, "how many dogs" of an animal.
        (Some(a), Some(b)) if a == b => KINDS[a][0] == counted || KINDS[b][0] == named,
        _ => false,
    }
}

/// What the picture of a named thing, room, setting, event or dish shows that its caption leaves
/// unnamed: a whole's parts and fittings, which a zero count would contradict, and what a
/// setting mostly shows, which a zero count would guess. "How many dresses? — 0" of "Megan and Don
/// raise champagne glasses in a toast", "How many cakes? — 0" of "12 healthy apple muffins on
/// wire cooling rack", "How many plates? — 0" of "Coconut cake on cake stand", "How many tables?
/// — 0" of a Chancellor writing at his desk, "How many vans? — 0" of employees de-icing a plane
/// and "How many phones? — 0" of protesters at a rally were judged wrong (issue 29's labels).
const SHOWN_UNNAMED: [(&[&str], &[&str]); 20] = [
    (
        &["computer", "desktop"],
        &["keyboard", "monitor", "screen", "mouse"],
    ),
    (&["laptop"], &["keyboard", "screen"]),
    (
        &["car", "truck", "bus", "bicycle", "bike", "motorcycle"],
        &["wheel", "tire", "tyre"],
    ),
    (
        &["kitchen"],
        &["oven", "stove", "sink", "refrigerator", "fridge"],
    ),
    (&["bathroom"], &["sink", "toilet", "mirror"]),
    (&["bedroom"], &["bed"]),
    // "How many dressers? — 0" of "a person sitting on a bed": a bed stands in a bedroom.
    (&["bed"], &["pillow", "blanket", "lamp", "dresser"]),
    (
        &[
            "toast",
            "wedding",
            "party",
            "reception",
            "celebration",
            "gala",
            "banquet",
            "prom",
            "bride",
            "groom",
        ],
        &[
            "dress", "suit", "tie", "glass", "cup", "bottle", "cake", "table", "chair", "plate",
        ],
    ),
    (
        &[
            "restaurant",
            "cafe",
            "bar",
            "pub",
            "grill",
            "diner",
            "lunch",
            "dinner",
            "breakfast",
            "brunch",
            "meal",
        ],
        &[
            "table", "chair", "plate", "bowl", "glass", "cup", "bottle", "fork", "knife", "spoon",
        ],
    ),
    (
        &[
            "muffin", "cupcake", "dessert", "pastry", "bread", "cookie", "pie", "cake", "salad",
            "soup", "dish", "recipe",
        ],
        &[
            "plate", "bowl", "tray", "pan", "table", "fork", "knife", "spoon", "cake", "cup",
            "glass", "jar",
        ],
    ),
    (
        &["desk", "office"],
        &[
            "table", "chair", "computer", "lamp", "phone", "book", "laptop", "monitor", "screen",
            "keyboard", "cabinet", "shelf", "plant",
        ],
    ),
    (
        &[
            "rally",
            "protest",
            "demonstration",
            "crowd",
            "protester",
            "demonstrator",
            "march",
            "parade",
            "festival",
        ],
        &[
            "phone",
            "sign",
            "flag",
            "hat",
            "cap",
            "umbrella",
            "bag",
            "sunglasses",
        ],
    ),
    (
        &[
            "airport", "runway", "tarmac", "plane", "airplane", "jet", "aircraft", "airliner",
        ],
        &["van", "truck", "car", "bus", "vehicle"],
    ),
    (
        &[
            "street",
            "road",
            "traffic",
            "highway",
            "intersection",
            "avenue",
            // "along Memorial Drive": a road by its name.
            "drive",
            "boulevard",
            "freeway",
        ],
        &[
            "car", "bus", "truck", "van", "taxi", "bicycle", "bike", "vehicle",
        ],
    ),
    (&["beach"], &["umbrella", "chair", "boat", "towel", "ball"]),
    (
        &["classroom", "school", "library", "lecture"],
        &["desk", "chair", "book", "table"],
    ),
    (
        &[
            "band",
            "concert",
            "gig",
            "musician",
            "singer",
            "guitarist",
            "drummer",
        ],
        &["microphone", "guitar", "drum", "speaker", "light"],
    ),
    (&["coastline", "engraving"], &["map"]),
    // "A close-up of a message", "A black and white rectangular object with white text": text
    // one photographs is on a screen as often as not.
    (
        &[
            "text",
            "message",
            "chat",
            "email",
            "notification",
            "website",
            "webpage",
        ],
        &["screen", "monitor", "phone", "computer", "laptop", "tablet"],
    ),
    // "How many paintings? — 0" of "an illustration of a woman wearing green": the picture may
    // itself be one.
    (
        &[
            "illustration",
            "drawing",
            "painting",
            "sketch",
            "artwork",
            "cartoon",
            "portrait",
        ],
        &["painting", "poster", "picture"],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_things_and_their_synonyms() {
        assert!(is_background("tree") && is_background("flag") && is_background("automobile"));
        assert!(!is_background("dog") && !is_background("umbrella") && !is_background("bus"));
        assert!(is_clothing("dress") && is_clothing("clothing") && !is_clothing("dog"));
        assert!(is_around_people("camera") && is_around_people("barricade"));
        assert!(!is_around_people("dog") && !is_around_people("pizza"));
        // A whole shows its parts; a part does not show its whole.
        assert!(overlaps("keyboard", "computer") && overlaps("bed", "bedroom"));
        assert!(overlaps("dresser", "bed") && !overlaps("bed", "dresser"));
        assert!(!overlaps("computer", "keyboard") && !overlaps("keyboard", "car"));
        // A setting shows what it is made of; a thing does not show its setting.
        assert!(overlaps("dress", "toast") && overlaps("cake", "muffin"));
        assert!(overlaps("plate", "cake") && overlaps("table", "desk"));
        assert!(overlaps("van", "plane") && overlaps("phone", "rally"));
        // An office's cabinets, a road's trucks when the road goes by its name ("Memorial Drive").
        assert!(overlaps("cabinet", "office") && overlaps("truck", "drive"));
        assert!(!overlaps("toast", "dress") && !overlaps("dog", "rally"));
        // Text is on a screen as often as not.
        assert!(overlaps("screen", "text") && overlaps("phone", "message"));
        // A painting may be what an illustration is.
        assert!(overlaps("painting", "illustration") && !overlaps("illustration", "painting"));
    }

    #[test]
    fn kinds_synonyms_and_names() {
        assert!(is_countable("dog") && is_countable("animal") && is_countable("barricade"));
        for name in [
            "mirage", "athlete", "year", "final", "charger", "respect", "way",
        ] {
            assert!(!is_countable(name), "{name}");
        }
        assert!(is_visible("snow") && is_visible("man") && is_visible("footballer"));
        for abstract_noun in ["disinformation", "respect", "victory", "nightmare", "role"] {
            assert!(!is_visible(abstract_noun), "{abstract_noun}");
        }
        assert!(overlaps("dog", "puppy") && overlaps("animal", "dog") && overlaps("dog", "animal"));
        assert!(overlaps("plane", "airplane") && overlaps("car", "car"));
        assert!(overlaps("phone", "iphone") && overlaps("phone", "smartphone"));
        // A short noun is no compound's end: a "scar" is no car.
        assert!(!overlaps("car", "scar"));
        assert!(!overlaps("dog", "cat") && !overlaps("car", "bus"));
        // Every word is in one kind and one synonym group only, so a kind's name is unambiguous.
        for table in [&KINDS[..], &SYNONYMS[..]] {
            let mut seen = std::collections::HashSet::new();
            for word in table.iter().flat_map(|k| k.iter()) {
                assert!(seen.insert(*word), "{word} is in two lists");
            }
        }
    }
}
