//! The one translation layer of the app, in the manner of gettext: UI
//! strings are written in English at their call site and go through [`t`]
//! (or [`tf`] when they have arguments, `{}` in order; [`tn`] when they
//! count something), which returns the current language's text, English
//! when a catalogue lacks one. Numbers are written as the language writes
//! them ([`number`]).
//!
//! UI-free, so the browser's model says things natively too; which
//! language is current is the page's choice (`web::page::i18n` detects and
//! remembers it, and calls [`set_current`]).
//!
//! Long because: the French catalogue, one table of pairs, is most of it.

use std::cell::Cell;
use std::fmt::Display;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Fr,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Fr];

    /// BCP 47 tag, as in `<html lang>` and `navigator.languages`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
        }
    }

    /// The language's own name, for the switch.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Fr => "Français",
        }
    }

    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
        Lang::ALL.into_iter().find(|l| l.code() == primary)
    }

    /// (English, translation) pairs; empty for English.
    pub fn catalogue(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Lang::En => &[],
            Lang::Fr => FR,
        }
    }
}

thread_local! {
    static CURRENT: Cell<Lang> = const { Cell::new(Lang::En) };
}

/// The language texts are given in: English until the page sets another.
#[inline(never)]
pub fn current() -> Lang {
    CURRENT.with(Cell::get)
}

/// Makes `lang` the language of what is said from now on.
pub fn set_current(lang: Lang) {
    CURRENT.with(|c| c.set(lang));
}

// Not inlined: `t` and `tf` are called from a hundred places, and an
// inlined catalogue search at each costs tens of KB of wasm.

/// `english` in the current language.
#[inline(never)]
pub fn t(english: &'static str) -> &'static str {
    lookup(current(), english)
}

#[inline(never)]
pub fn lookup(lang: Lang, english: &'static str) -> &'static str {
    lang.catalogue()
        .iter()
        .find(|(en, _)| *en == english)
        .map_or(english, |(_, text)| text)
}

/// [`t`] with arguments: each `{}` of the text takes the next one.
#[inline(never)]
pub fn tf(english: &'static str, args: &[&dyn Display]) -> String {
    fill(t(english), args)
}

pub fn fill(text: &str, args: &[&dyn Display]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut args = args.iter();
    let mut rest = text;
    while let Some(at) = rest.find("{}") {
        out.push_str(&rest[..at]);
        match args.next() {
            Some(a) => out.push_str(&a.to_string()),
            None => out.push_str("{}"),
        }
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

/// Which of a message's two forms a count takes in `lang`: English uses
/// the singular for 1 alone, French for 0 and 1 (CLDR's rules for the
/// integers these messages count).
pub fn is_singular(lang: Lang, n: u64) -> bool {
    match lang {
        Lang::En => n == 1,
        Lang::Fr => n < 2,
    }
}

/// [`tf`] for a message about `n` things: `one` or `other` (both English,
/// both in the catalogues) as the language's plural rule says, filled with
/// `args` (the count among them, usually as [`number`] writes it).
#[inline(never)]
pub fn tn(n: u64, one: &'static str, other: &'static str, args: &[&dyn Display]) -> String {
    let lang = current();
    fill(
        lookup(lang, if is_singular(lang, n) { one } else { other }),
        args,
    )
}

/// `n` as the page's language writes numbers (`1,669,432` in English,
/// `1 669 432` in French, as `Intl.NumberFormat` groups them: the page's
/// test `numbers_match_the_browser_s_intl` holds that). Not by `Intl` itself:
/// making its first format took 13 ms of a fresh page's first screen.
pub fn number(n: u64) -> String {
    let sep = match current() {
        Lang::En => ",",
        Lang::Fr => "\u{202f}",
    };
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str(sep);
        }
        out.push(c);
    }
    out
}

/// `x` with `digits` decimals, as the page's language writes them (`12.5`,
/// `12,5`).
pub fn decimal(x: f64, digits: usize) -> String {
    let text = format!("{x:.digits$}");
    match current() {
        Lang::En => text,
        Lang::Fr => text.replace('.', ","),
    }
}

/// The English text of each record kind's name (`RecordKind::NAMES`), as
/// the Summary shows it: what [`t`] translates (`tests/i18n_catalogue.rs`
/// holds every name to a text in the catalogue).
pub fn record_kind_text(name: &'static str) -> &'static str {
    match name {
        "blank" => "blank",
        "comment" => "comment",
        "header" => "header",
        "instruction" => "instruction",
        "register" => "register",
        "register_list" => "register list",
        "memory" => "memory",
        "exception" => "exception",
        "branch" => "branch",
        "bus" => "bus",
        "cache" => "cache",
        "cache_maintenance" => "cache maintenance",
        "table_walk" => "table walk",
        "tlb" => "TLB",
        "system_op" => "system operation",
        "ep_trace" => "EP trace",
        "coproc_transfer" => "coprocessor transfer",
        "text" => "text",
        "unparsed" => "unparsed",
        other => other,
    }
}

/// A key's name as the help and the palette show it in the page's language
/// (`Shift-Tab`, `Maj-Tab`): each named key of a combination translated,
/// keys that are a character (`-`, `K`) or a function key as they are.
pub fn key_label(label: &'static str) -> String {
    if label.len() == 1 {
        return label.to_string();
    }
    label
        .split('-')
        .map(|part| if is_key_name(part) { t(part) } else { part })
        .collect::<Vec<_>>()
        .join("-")
}

/// Whether a part of a key label is a key's name (a word), not a character
/// or a function key (`F6`).
pub fn is_key_name(part: &str) -> bool {
    part.len() > 1 && part.chars().all(|c| c.is_ascii_alphabetic())
}

/// `x` percent with `digits` decimals, as the page's language writes it
/// (`12.5%`; `12,5 %` with a no-break space, as `Intl` does: the page's
/// test `percentages_match_the_browser_s_intl` holds that).
pub fn percent(x: f64, digits: usize) -> String {
    match current() {
        Lang::En => format!("{}%", decimal(x, digits)),
        Lang::Fr => format!("{}\u{a0}%", decimal(x, digits)),
    }
}

/// French. Keys are the English texts exactly as written at their call sites.
static FR: &[(&str, &str)] = &[
    // page
    ("Arm CPU execution traces, read in your browser. Nothing is uploaded.", "Traces d’exécution de processeurs Arm, lues dans votre navigateur. Rien n’est envoyé."),
    ("Language", "Langue"),
    ("Drop a Tarmac trace here (with its ELF image, for symbols)", "Déposez une trace Tarmac ici (avec son image ELF, pour les symboles)"),
    ("Drop another trace to replace this one, or its ELF image for symbols", "Déposez une autre trace pour remplacer celle-ci, ou son image ELF pour les symboles"),
    ("or choose a file: ", "ou choisissez un fichier : "),
    ("Try the demo", "Essayer la démo"),
    ("a 550 KB trace of a recursive program, with its symbols", "une trace de 550 Ko d’un programme récursif, avec ses symboles"),
    ("cannot load the demo file {}: {}", "impossible de charger le fichier de démo {} : {}"),
    ("Drop a Tarmac trace above to browse it (and its ELF image, for symbols).", "Déposez une trace Tarmac ci-dessus pour la parcourir (et son image ELF, pour les symboles)."),
    ("Browse", "Parcourir"),
    ("Core", "Cœur"),
    ("all cores, interleaved", "tous les cœurs, entremêlés"),
    ("Registers and calls are this core's; memory holds every core's writes.", "Registres et appels sont ceux de ce cœur ; la mémoire reçoit les écritures de tous les cœurs."),
    ("This trace interleaves several cores: pick one to see its registers and calls.", "Cette trace entremêle plusieurs cœurs : choisissez-en un pour voir ses registres et ses appels."),
    ("Summary", "Résumé"),
    ("No summary: the trace could not be read.", "Pas de résumé : la trace n’a pas pu être lue."),
    ("The summary appears when the whole trace is read.", "Le résumé apparaît quand toute la trace est lue."),
    ("Could not read this trace: ", "Impossible de lire cette trace : "),
    // file summary, progress, counts
    ("File", "Fichier"),
    ("Size", "Taille"),
    ("Lines", "Lignes"),
    ("Dialect", "Dialecte"),
    ("{} bytes", "{} octets"),
    ("{} ({} bytes)", "{} ({} octets)"),
    ("Reading… {}%", "Lecture… {} %"),
    ("Records by kind", "Enregistrements par type"),
    ("Kind", "Type"),
    ("Count", "Nombre"),
    ("total", "total"),
    ("– left", "– restant"),
    ("{} s left", "{} s restantes"),
    ("{} min {} s left", "{} min {} s restantes"),
    ("Unparsed lines: {}", "Lignes non comprises : {}"),
    ("Unparsed lines: {} (first {} shown)", "Lignes non comprises : {} ({} premières affichées)"),
    (", column {}: ", ", colonne {} : "),
    ("line {}", "ligne {}"),
    ("Every line was understood.", "Toutes les lignes ont été comprises."),
    // ELF
    ("ELF image for symbols: ", "Image ELF pour les symboles : "),
    ("load offset ", "décalage de chargement "),
    ("{} symbols loaded", "{} symboles chargés"),
    ("bad load offset {}", "décalage de chargement incorrect {}"),
    // browser toolbar and views
    ("New view", "Nouvelle vue"),
    ("Line…", "Ligne…"),
    ("Time…", "Temps…"),
    ("Next PC…", "PC suivant…"),
    ("Prev PC…", "PC précédent…"),
    ("Memory…", "Mémoire…"),
    ("Fold all", "Tout replier"),
    ("Unfold all", "Tout déplier"),
    ("Colours", "Couleurs"),
    ("Symbols", "Symboles"),
    ("Keys", "Touches"),
    ("View #{}", "Vue n° {}"),
    ("line {} · time {} · node {}", "ligne {} · temps {} · nœud {}"),
    ("no position yet", "pas encore de position"),
    ("Calls active here", "Appels actifs ici"),
    ("Go to the call", "Aller à l’appel"),
    ("Close this view", "Fermer cette vue"),
    ("Trace lines", "Lignes de la trace"),
    ("Fold this call", "Replier cet appel"),
    ("Click to unfold", "Cliquer pour déplier"),
    ("  … {} lines folded", "  … {} lignes repliées"),
    ("F1 for the keys of the focused pane; / searches; Tab moves between panes.", "F1 pour les touches du volet actif ; / cherche ; Tab passe d’un volet à l’autre."),
    // panes
    ("Core registers", "Registres principaux"),
    ("Changed registers", "Registres modifiés"),
    ("No register changed here.", "Aucun registre modifié ici."),
    (
        "command palette: every command, and go to a line, time or PC",
        "palette de commandes : toutes les commandes, et aller à une ligne, un temps ou un PC",
    ),
    ("Command palette", "Palette de commandes"),
    ("Commands…", "Commandes…"),
    (
        "Type a command, or a line, time or PC to go to",
        "Tapez une commande, ou une ligne, un temps ou un PC où aller",
    ),
    ("No command matches.", "Aucune commande ne correspond."),
    ("Go to line {}", "Aller à la ligne {}"),
    ("{} line of type “{}” unread", "{} ligne de type « {} » non lue"),
    ("{} lines of type “{}” unread", "{} lignes de type « {} » non lues"),
    ("{} line of other types unread", "{} ligne d’autres types non lue"),
    ("{} lines of other types unread", "{} lignes d’autres types non lues"),
    ("Coverage", "Couverture"),
    ("Statistics", "Statistiques"),
    ("Branches and loops", "Branchements et boucles"),
    ("Cache and TLB", "Cache et TLB"),
    ("Control flow", "Flot de contrôle"),
    ("Exception levels", "Niveaux d’exception"),
    ("Exceptions", "Exceptions"),
    ("Instruction mix", "Répartition des instructions"),
    ("no instruction of it ran", "aucune de ses instructions n’a tourné"),
    ("Control-flow graph", "Graphe de flot de contrôle"),
    ("Counting: {} of {} bytes", "Décompte : {} octets sur {}"),
    (
        "Counted over the trace's first {} of {} bytes ({} instructions); counting the whole trace:",
        "Décompte sur les {} premiers octets de la trace, sur {} ({} instructions) ; décompte de toute la trace :",
    ),
    ("{} of {} bytes", "{} octets sur {}"),
    ("Counting…", "Décompte…"),
    ("Download {} ({} bytes)", "Télécharger {} ({} octets)"),
    ("Function (a symbol or an address)", "Fonction (un symbole ou une adresse)"),
    ("Show", "Afficher"),
    ("Time in exceptions taken inside a call counts in the call", "Le temps des exceptions prises pendant un appel compte dans l’appel"),
    ("Type a function to see its executed control-flow graph.", "Tapez une fonction pour voir le graphe de flot de contrôle exécuté."),
    ("as tarmac-lens {} prints it", "tel que tarmac-lens {} l’écrit"),
    ("All", "Tout"),
    ("Branch outcomes", "Issues des branchements"),
    ("Counting what ran…", "Décompte de ce qui a tourné…"),
    ("Counting what ran: {} of {} bytes", "Décompte de ce qui a tourné : {} octets sur {}"),
    ("Entered", "Appels"),
    ("First line never run", "Première ligne jamais exécutée"),
    ("How much of the image's code this trace ran, as tarmac-lens coverage counts it. Click a file to see its first line that never ran, a function to see where it starts.", "La part du code de l’image que cette trace a exécutée, comptée comme le fait tarmac-lens coverage. Cliquez sur un fichier pour voir sa première ligne jamais exécutée, sur une fonction pour voir où elle commence."),
    ("How much of the image's code this trace ran, by function (the image has no DWARF lines: build it with -g for lines and files).", "La part du code de l’image que cette trace a exécutée, par fonction (l’image n’a pas de lignes DWARF : compilez-la avec -g pour les lignes et les fichiers)."),
    ("Instructions run", "Instructions exécutées"),
    ("Show line {} in the source pane", "Afficher la ligne {} dans le panneau source"),
    ("Starts at", "Commence à"),
    ("{} register value shorter than the register (zero-extended, or unchanged after dashes), first at line {}", "{} valeur de registre plus courte que le registre (complétée par des zéros, ou inchangée après des tirets), d’abord à la ligne {}"),
    ("{} register values shorter than the register (zero-extended, or unchanged after dashes), first at line {}", "{} valeurs de registre plus courtes que le registre (complétées par des zéros, ou inchangées après des tirets), d’abord à la ligne {}"),
    ("{} register value unknown (all dashes: nothing set), first at line {}", "{} valeur de registre inconnue (que des tirets : rien d’écrit), d’abord à la ligne {}"),
    ("{} register values unknown (all dashes: nothing set), first at line {}", "{} valeurs de registre inconnues (que des tirets : rien d’écrit), d’abord à la ligne {}"),
    ("Go to time {}", "Aller au temps {}"),
    ("Next time the PC is {}", "Prochaine fois que le PC vaut {}"),
    ("Single-precision FP", "Virgule flottante simple précision"),
    ("Double-precision FP", "Virgule flottante double précision"),
    ("NEON vectors", "Vecteurs NEON"),
    ("MVE vectors", "Vecteurs MVE"),
    ("SVE vectors", "Vecteurs SVE"),
    ("Memory", "Mémoire"),
    ("Disassembly", "Désassemblage"),
    ("Disassembly: {}", "Désassemblage : {}"),
    ("show/hide the disassembly of the function around the position: each instruction's executions and failed conditions; click one to go to its next execution", "afficher/masquer le désassemblage de la fonction autour de la position : les exécutions de chaque instruction et ses conditions échouées ; un clic va à sa prochaine exécution"),
    ("Times run, and (+) times its condition failed", "Nombre d’exécutions, et (+) d’échecs de sa condition"),
    ("count", "nombre"),
    ("Close (i)", "Fermer (i)"),
    ("Reading the function…", "Lecture de la fonction…"),
    ("Query", "Requête"),
    ("show/hide the Query pane: SQL over the trace's tables (instructions, registers, memory, calls, functions, source lines, events, unparsed lines); Ctrl-Enter runs, Escape stops; click a line or time to go there", "afficher/masquer le panneau Requête : du SQL sur les tables de la trace (instructions, registres, mémoire, appels, fonctions, lignes source, événements, lignes non comprises) ; Ctrl-Entrée l’exécute, Échap l’arrête ; un clic sur une ligne ou un temps y va"),
    ("The Query pane needs the hosted page: the single-file build leaves its query engine out. Open Tarmac Lens from a web server, or use `tarmac-lens sql`.", "Le panneau Requête a besoin de la page hébergée : la version en un seul fichier n’embarque pas son moteur de requêtes. Ouvrez Tarmac Lens depuis un serveur web, ou utilisez `tarmac-lens sql`."),
    ("The trace is still being indexed: run the query once it is done.", "La trace est encore en cours d’indexation : lancez la requête une fois qu’elle est finie."),
    ("Insert into the query", "Insérer dans la requête"),
    ("The tables are listed once the query engine has started.", "Les tables s’affichent une fois le moteur de requêtes démarré."),
    ("Starting the query engine…", "Démarrage du moteur de requêtes…"),
    ("Running… (Escape stops it)", "En cours… (Échap l’arrête)"),
    ("{} rows in {} ms; the first {} are shown", "{} lignes en {} ms ; les {} premières sont affichées"),
    ("{} rows in {} ms", "{} lignes en {} ms"),
    ("The query failed.", "La requête a échoué."),
    ("Stopped.", "Arrêtée."),
    ("Go to this line", "Aller à cette ligne"),
    ("Go to this time", "Aller à ce temps"),
    ("Close (Q)", "Fermer (Q)"),
    ("SQL query (Ctrl-Enter runs it, Alt-Up and Alt-Down go through the history, Escape stops it)", "Requête SQL (Ctrl-Entrée l’exécute, Alt-Haut et Alt-Bas parcourent l’historique, Échap l’arrête)"),
    ("Run the query (Ctrl-Enter)", "Exécuter la requête (Ctrl-Entrée)"),
    ("Run", "Exécuter"),
    ("Stop the query (Escape)", "Arrêter la requête (Échap)"),
    ("Stop", "Arrêter"),
    ("History", "Historique"),
    ("Go to its next execution", "Aller à sa prochaine exécution"),
    ("Memory at {}", "Mémoire à {}"),
    ("Memory at {} (compared)", "Mémoire à {} (comparée)"),
    ("Reading registers…", "Lecture des registres…"),
    ("No {} in this trace.", "Pas de {} dans cette trace."),
    ("Click: previous write of this register", "Clic : écriture précédente de ce registre"),
    ("The trace view this pane follows", "La vue de trace que suit ce volet"),
    ("view ", "vue "),
    ("lock", "verrouiller"),
    ("Close", "Fermer"),
    // prompts and help
    ("Go to line:", "Aller à la ligne :"),
    ("Go to time:", "Aller au temps :"),
    ("Next visit of PC:", "Passage suivant du PC :"),
    ("Previous visit of PC:", "Passage précédent du PC :"),
    ("Memory at address:", "Mémoire à l’adresse :"),
    (
        "The memory pane at {} opens where it has a value ({}).",
        "Le volet mémoire à {} s’ouvre là où l’adresse a une valeur ({}).",
    ),
    ("Lock pane to line:", "Verrouiller le volet à la ligne :"),
    ("Lock pane to time:", "Verrouiller le volet au temps :"),
    ("Compare with line:", "Comparer avec la ligne :"),
    ("Trace pane keys", "Touches du volet de trace"),
    ("Register pane keys", "Touches du volet des registres"),
    ("Memory pane keys", "Touches du volet mémoire"),
    ("Close (Esc)", "Fermer (Échap)"),
    // status messages
    ("Not found.", "Introuvable."),
    ("No such position in the trace.", "Cette position n’existe pas dans la trace."),
    ("No earlier write in the trace.", "Aucune écriture antérieure dans la trace."),
    ("This instruction has no lines.", "Cette instruction n’a pas de lignes."),
    ("No PC searched for yet (p or P).", "Aucun PC encore cherché (p ou P)."),
    // menus, notes and the keys' help (src/web/keys.rs)
    ("{} is not known here", "{} n’est pas connu ici"),
    ("{} does not fit an address", "{} ne tient pas dans une adresse"),
    ("{} (no symbol)", "{} (pas de symbole)"),
    ("Nothing to compare with: move first, or d.", "Rien à comparer : déplacez-vous d’abord, ou d."),
    ("No changed byte within {} KiB after.", "Aucun octet modifié dans les {} Kio qui suivent."),
    ("No changed byte within {} KiB before.", "Aucun octet modifié dans les {} Kio qui précèdent."),
    ("Previous write of {}", "Écriture précédente de {}"),
    ("Next write of {}", "Écriture suivante de {}"),
    ("Watch {} (W)", "Surveiller {} (W)"),
    ("Watch the byte at {} (W)", "Surveiller l’octet à {} (W)"),
    ("Watch {} bytes at {}", "Surveiller les {} octets à {}"),
    ("Nothing is watched: W on a register, a byte or anywhere.", "Rien n’est surveillé : W sur un registre, un octet ou ailleurs."),
    ("The length is 0.", "La longueur est 0."),
    ("{} is not a register or a memory range.", "{} n’est ni un registre ni une plage de mémoire."),
    ("No later access.", "Aucun accès plus loin."),
    ("No earlier access.", "Aucun accès avant."),
    ("Watch (x5, [sp:0x40], buf:64):", "Surveiller (x5, [sp:0x40], buf:64) :"),
    ("Go to this access", "Aller à cet accès"),
    ("Looking…", "Recherche…"),
    ("No access.", "Aucun accès."),
    ("The access after the position ())", "L’accès après la position ())"),
    ("The access before the position (()", "L’accès avant la position (()"),
    ("reads and writes", "lectures et écritures"),
    ("reads", "lectures"),
    ("writes", "écritures"),
    ("Watch {}: {} accesses", "Surveillance de {} : {} accès"),
    ("Watch {}: {} accesses so far…", "Surveillance de {} : {} accès pour l’instant…"),
    ("Watch", "Surveillance"),
    ("Which accesses", "Quels accès"),
    ("The list stops at {}; ( and ) find the others.", "La liste s’arrête à {} ; ( et ) trouvent les autres."),
    ("the watch's next access from the position", "accès suivant de la surveillance depuis la position"),
    ("next point where a value condition becomes true (x5 == 0, [sp+8:4] > 100, pc == main && x0 == 1)", "prochain point où une condition sur les valeurs devient vraie (x5 == 0, [sp+8:4] > 100, pc == main && x0 == 1)"),
    ("the condition's next hit from the position", "prochain point de la condition depuis la position"),
    ("the condition's previous hit from the position", "point précédent de la condition depuis la position"),
    ("Next point where (x5 == 0, [sp+8:4] > 100):", "Prochain point où (x5 == 0, [sp+8:4] > 100) :"),
    ("No condition yet: c asks for one (x5 == 0, [sp:4] > 100).", "Pas encore de condition : c en demande une (x5 == 0, [sp:4] > 100)."),
    ("Condition search stopped.", "Recherche de la condition arrêtée."),
    ("{} becomes true at line {}.", "{} devient vraie à la ligne {}."),
    ("{} does not become true after the position.", "{} ne devient pas vraie après la position."),
    ("{} does not become true before the position.", "{} ne devient pas vraie avant la position."),
    ("Searching where {} becomes true… {}%", "Recherche du point où {} devient vraie… {} %"),
    ("Stop (Esc)", "Arrêter (Échap)"),
    ("Not a condition, at column {}: {}", "Ce n'est pas une condition, à la colonne {} : {}"),
    ("the watch's previous access from the position", "accès précédent de la surveillance depuis la position"),
    ("watch a register or memory range: the selection of a register or memory pane, or one typed (x5, [sp:0x40], buf:64); list its reads and writes", "surveiller un registre ou une plage de mémoire : la sélection d’un panneau de registres ou de mémoire, ou une saisie (x5, [sp:0x40], buf:64) ; lister ses lectures et écritures"),
    ("Why this value? (y)", "Pourquoi cette valeur ? (y)"),
    ("Why the 8 bytes at {}?", "Pourquoi les 8 octets à {} ?"),
    ("Why this value? (x5, [sp:8], buf:4):", "Pourquoi cette valeur ? (x5, [sp:8], buf:4) :"),
    ("why this value? the tree of writes that made the selected register's or byte's value (or one typed: x5, [sp:8]); arrows open steps, Enter goes to a writer", "pourquoi cette valeur ? l’arbre des écritures qui ont fait la valeur du registre ou de l’octet sélectionné (ou d’une saisie : x5, [sp:8]) ; les flèches ouvrent les étapes, Entrée va à l’instruction qui a écrit la valeur"),
    ("immediate", "immédiat"),
    ("never written: the image holds {}", "jamais écrit : l’image contient {}"),
    ("never written: no image value", "jamais écrit : aucune valeur d’image"),
    ("trace start", "début de la trace"),
    ("exception entry", "entrée d’exception"),
    ("system register", "registre système"),
    ("written by a line its instruction does not explain", "écrit par une ligne que son instruction n’explique pas"),
    ("undecoded: {}", "non décodé : {}"),
    ("not expanded yet", "pas encore développé"),
    ("expanded above", "développé plus haut"),
    ("not expanded (node limit)", "non développé (limite de nœuds)"),
    ("Nothing in the trace wrote this value.", "Rien dans la trace n’a écrit cette valeur."),
    ("Why {} after line {}", "Pourquoi {} après la ligne {}"),
    ("Why this value?", "Pourquoi cette valeur ?"),
    ("Where the value came from", "D’où vient la valeur"),
    ("Go to the line that wrote it", "Aller à la ligne qui l’a écrite"),
    ("Hide its inputs", "Masquer ses entrées"),
    ("Show its inputs", "Afficher ses entrées"),
    ("no earlier write", "aucune écriture avant"),
    ("not followed: {}", "non suivi : {}"),
    ("Symbol at {}", "Symbole à {}"),
    ("Open memory at {}", "Ouvrir la mémoire à {}"),
    ("Previous write of {} bytes at {}", "Écriture précédente des {} octets à {}"),
    ("Previous write of 1 byte at {}", "Écriture précédente de l’octet à {}"),
    ("Next write of the byte at {}", "Écriture suivante de l’octet à {}"),
    ("Previous changed byte ([)", "Octet modifié précédent ([)"),
    ("Next changed byte (])", "Octet modifié suivant (])"),
    ("Compare with a line… (d)", "Comparer avec une ligne… (d)"),
    ("Lock to a line… (l)", "Verrouiller à une ligne… (l)"),
    ("Highlight a register or memory line with a first, then Return.", "Éclairez d’abord une ligne de registre ou de mémoire avec a, puis Entrée."),
    ("Unfold this call", "Déplier cet appel"),
    ("Move the position here (after line {})", "Mettre la position ici (après la ligne {})"),
    ("Copy for gdb: monitor line {}", "Copier pour gdb : monitor line {}"),
    ("Copied: {}", "Copié : {}"),
    ("{} bytes at {}", "{} octets à {}"),
    ("Fold the call containing this line (-)", "Replier l’appel qui contient cette ligne (-)"),
    ("Unfold the call after this line (+)", "Déplier l’appel après cette ligne (+)"),
    ("Fold the calls this function makes ([)", "Replier les appels que fait cette fonction ([)"),
    ("Unfold everything inside this function (])", "Tout déplier dans cette fonction (])"),
    ("Cannot go to the position in the URL: {}", "Impossible d’aller à la position de l’URL : {}"),
    ("The position in the URL is not in this trace.", "La position de l’URL n’est pas dans cette trace."),
    ("Locked; click (or Ctrl-L) to follow the trace view again", "Verrouillé ; cliquez (ou Ctrl-L) pour suivre de nouveau la vue de trace"),
    ("🔒 line {} t {}", "🔒 ligne {} t {}"),
    ("Keep showing this position (Ctrl-L)", "Garder cette position affichée (Ctrl-L)"),
    ("Close (x)", "Fermer (x)"),
    ("Every key has a mouse path too: click a row to move there, right-click trace lines, registers and bytes for their jumps, click a folded call to unfold it.", "Chaque touche a aussi son chemin à la souris : cliquez sur une ligne pour vous y placer, clic droit sur les lignes de trace, les registres et les octets pour leurs sauts, cliquez sur un appel replié pour le déplier."),
    ("focus the next pane (Shift-Tab: previous)", "activer le volet suivant (Maj-Tab : précédent)"),
    ("focus the previous pane", "activer le volet précédent"),
    ("this help", "cette aide"),
    ("show/hide the core registers", "afficher/masquer les registres principaux"),
    (
        "show/hide the registers the position changed",
        "afficher/masquer les registres modifiés par la position",
    ),
    ("show/hide single-precision FP registers", "afficher/masquer les registres flottants simple précision"),
    ("show/hide double-precision FP registers", "afficher/masquer les registres flottants double précision"),
    ("show/hide NEON vector registers", "afficher/masquer les registres vectoriels NEON"),
    ("show/hide MVE vector registers", "afficher/masquer les registres vectoriels MVE"),
    ("show/hide SVE vector registers", "afficher/masquer les registres vectoriels SVE"),
    ("next instruction (a folded call is one step)", "instruction suivante (un appel replié compte pour un pas)"),
    ("previous instruction", "instruction précédente"),
    ("a screenful down", "un écran plus bas"),
    ("a screenful up", "un écran plus haut"),
    ("start of the trace", "début de la trace"),
    ("end of the trace (indexed so far)", "fin de la trace (indexée jusqu’ici)"),
    ("put the position in the middle, top, bottom", "mettre la position au milieu, en haut, en bas"),
    ("fold the call containing the position", "replier l’appel qui contient la position"),
    ("unfold the folded call after the position", "déplier l’appel replié après la position"),
    ("fold every call made by the current function", "replier tous les appels de la fonction courante"),
    ("unfold everything inside the current function", "tout déplier dans la fonction courante"),
    ("fold everything", "tout replier"),
    ("unfold everything", "tout déplier"),
    ("go to a line number", "aller à un numéro de ligne"),
    ("go to a time", "aller à un temps"),
    ("next visit of a PC (address expression)", "passage suivant d’un PC (expression d’adresse)"),
    ("previous visit of a PC", "passage précédent d’un PC"),
    ("repeat the PC search forwards", "répéter la recherche de PC vers l’avant"),
    ("repeat the PC search backwards", "répéter la recherche de PC vers l’arrière"),
    ("search the trace text (plain or regex, by record kind, in a line range)", "chercher dans le texte de la trace (texte ou regex, par type d’enregistrement, dans un intervalle de lignes)"),
    ("search the trace text backwards from the position", "chercher dans le texte de la trace en arrière depuis la position"),
    ("next search result (in the search's direction)", "résultat de recherche suivant (dans le sens de la recherche)"),
    ("previous search result", "résultat de recherche précédent"),
    // search bar
    ("not a line number: {}", "pas un numéro de ligne : {}"),
    ("the line range ends before it starts", "l’intervalle de lignes finit avant de commencer"),
    ("no match", "aucune correspondance"),
    ("1 match", "1 correspondance"),
    ("{} matches", "{} correspondances"),
    ("{} matches so far, {}% searched", "{} correspondances pour l’instant, {} % parcourus"),
    (" (the first {} listed)", " (les {} premières listées)"),
    ("Search", "Chercher"),
    ("Search backwards", "Chercher en arrière"),
    ("Search…", "Chercher…"),
    ("text to find", "texte à trouver"),
    ("Pattern kind", "Type de motif"),
    ("plain text", "texte simple"),
    ("regular expression", "expression régulière"),
    ("ignore case", "ignorer la casse"),
    ("Record kind", "Type d’enregistrement"),
    ("all lines", "toutes les lignes"),
    ("instructions", "instructions"),
    ("registers", "registres"),
    ("memory", "mémoire"),
    ("events", "événements"),
    ("lines", "lignes"),
    ("first line", "première ligne"),
    ("last line", "dernière ligne"),
    ("end", "fin"),
    ("Search results", "Résultats de la recherche"),
    ("type something to search for", "tapez quelque chose à chercher"),
    ("Search wrapped to the start.", "La recherche est repartie du début."),
    ("Search wrapped to the end.", "La recherche est repartie de la fin."),
    ("No further result yet: the search is still running.", "Pas encore d’autre résultat : la recherche continue."),
    ("Only the first {} results are listed; back to the first.", "Seuls les {} premiers résultats sont listés ; retour au premier."),
    ("No search results (/ or ? searches).", "Pas de résultats de recherche (/ ou ? cherche)."),
    ("open a memory pane at an address expression", "ouvrir un volet mémoire à une expression d’adresse"),
    ("highlight the lines of the instruction before the position, in turn", "éclairer tour à tour les lignes de l’instruction avant la position"),
    ("previous write of the highlighted line's register or memory", "écriture précédente du registre ou de la mémoire de la ligne éclairée"),
    ("syntax highlighting on/off", "coloration syntaxique oui/non"),
    ("branch targets as symbols on/off (with an ELF)", "cibles de branchement en symboles oui/non (avec un ELF)"),
    ("move the selection up", "déplacer la sélection vers le haut"),
    ("move the selection down", "déplacer la sélection vers le bas"),
    ("move the selection left", "déplacer la sélection vers la gauche"),
    ("move the selection right", "déplacer la sélection vers la droite"),
    ("previous write of the selection", "écriture précédente de la sélection"),
    ("lock the pane to a line", "verrouiller le volet à une ligne"),
    ("lock the pane to a time", "verrouiller le volet à un temps"),
    ("unlock (or lock to what is shown)", "déverrouiller (ou verrouiller à ce qui est affiché)"),
    ("close the pane", "fermer le volet"),
    ("symbolic reading of the selected register's value", "lecture symbolique de la valeur du registre sélectionné"),
    ("scroll down a pane's height", "défiler d’une hauteur de volet vers le bas"),
    ("scroll up a pane's height", "défiler d’une hauteur de volet vers le haut"),
    ("previous changed byte", "octet modifié précédent"),
    ("next changed byte", "octet modifié suivant"),
    ("compare with another line (highlight changes since)", "comparer avec une autre ligne (éclaire les changements depuis)"),
    ("one row shorter", "une rangée de moins"),
    ("one row taller", "une rangée de plus"),
    ("previous write of the byte", "écriture précédente de l’octet"),
    ("previous write of the aligned 2 bytes", "écriture précédente des 2 octets alignés"),
    ("previous write of the aligned 4 bytes", "écriture précédente des 4 octets alignés"),
    ("previous write of the aligned 8 bytes", "écriture précédente des 8 octets alignés"),
    // source pane
    ("show/hide the source pane (file and line from the ELF's DWARF, per-line counts)", "afficher/masquer le panneau source (fichier et ligne d’après le DWARF de l’ELF, comptes par ligne)"),
    ("Source pane keys", "Touches du panneau source"),
    ("step to the next source line that runs", "aller à la prochaine ligne source exécutée"),
    ("step back to the source line that ran before", "revenir à la ligne source exécutée avant"),
    ("step over: the next line of this function, calls run over", "pas à pas principal : la ligne suivante de cette fonction, sans entrer dans les appels"),
    ("step out: the caller's next line after this call returns", "sortir : la ligne suivante de l’appelant, au retour de cet appel"),
    ("next execution of the chosen line (or this one)", "exécution suivante de la ligne choisie (ou de celle-ci)"),
    ("previous execution of the chosen line (or this one)", "exécution précédente de la ligne choisie (ou de celle-ci)"),
    ("Choose source files…", "Choisir des fichiers source…"),
    ("Choose the source folder…", "Choisir le dossier source…"),
    ("Executions of {}:{} (n, N step through them)", "Exécutions de {}:{} (n, N pour les parcourir)"),
    ("Load the program's ELF image (built with -g) to see its source lines.", "Chargez l’image ELF du programme (compilée avec -g) pour voir ses lignes source."),
    ("More…", "Plus…"),
    ("No instruction here.", "Aucune instruction ici."),
    ("No other execution of this line that way.", "Aucune autre exécution de cette ligne dans ce sens."),
    ("No source line for address {}.", "Aucune ligne source pour l’adresse {}."),
    ("No source line that way.", "Aucune ligne source dans ce sens."),
    ("Reading the source position…", "Lecture de la position source…"),
    ("Source file {} is needed: choose its folder (or the file) to see it.", "Le fichier source {} est nécessaire : choisissez son dossier (ou le fichier) pour le voir."),
    ("Source", "Source"),
    ("Source: {}", "Source : {}"),
    ("The ELF image has no DWARF line information: build it with -g.", "L’image ELF n’a pas d’informations de lignes DWARF : compilez-la avec -g."),
    ("The compiler tied this instruction to no line.", "Le compilateur n’a rattaché cette instruction à aucune ligne."),
    ("inlined into {} at {}", "intégrée dans {} à {}"),
    ("time {}, trace line {}, call depth {}", "temps {}, ligne de trace {}, profondeur d’appel {}"),
    ("times this line ran (condition failed in brackets)", "nombre d’exécutions de la ligne (condition fausse entre parenthèses)"),
    ("{} at {}", "{} à {}"),
    ("file:line", "fichier:ligne"),
    ("Functions", "Fonctions"),
    ("function column on/off (with an ELF): the function of each instruction", "colonne des fonctions oui/non (avec un ELF) : la fonction de chaque instruction"),
    ("Drop the source folder here", "Déposez le dossier source ici"),
    ("Open the source folder…", "Ouvrir le dossier source…"),
    ("source file:line column on/off (with an ELF built with -g; also on hover)", "colonne fichier:ligne source oui/non (avec un ELF compilé avec -g ; aussi au survol)"),
    ("{} never ran in this trace.", "{} ne s’exécute jamais dans cette trace."),
    // call stack pane
    ("show/hide the call stack", "afficher/masquer la pile d’appels"),
    ("Calls that never returned", "Appels jamais revenus"),
    ("Call stack", "Pile d’appels"),
    ("The innermost call is listed first", "L’appel le plus interne vient en premier"),
    ("innermost first", "plus interne d’abord"),
    ("Close (C)", "Fermer (C)"),
    ("No call is active here.", "Aucun appel n’est actif ici."),
    ("Every call returned.", "Tous les appels sont revenus."),
    ("Go to the call of {}", "Aller à l’appel de {}"),
    // events pane
    ("show/hide the events (exceptions, mode changes, aborts, unparsed lines)", "afficher/masquer les événements (exceptions, changements de mode, abandons, lignes non comprises)"),
    ("next event", "événement suivant"),
    ("previous event", "événement précédent"),
    ("exception", "exception"),
    ("interrupt", "interruption"),
    ("mode change", "changement de mode"),
    ("aborted access", "accès abandonné"),
    ("unparsed line", "ligne non comprise"),
    ("Events", "Événements"),
    ("Events: {}", "Événements : {}"),
    ("{}–{}", "{}–{}"),
    ("Earlier events", "Événements précédents"),
    ("Later events", "Événements suivants"),
    ("Close (v)", "Fermer (v)"),
    ("No exceptions, mode changes, aborts or unparsed lines.", "Aucune exception, aucun changement de mode, abandon ni ligne non comprise."),
    ("Go to this event", "Aller à cet événement"),
    ("Reading events…", "Lecture des événements…"),
    ("No later event.", "Aucun événement plus loin."),
    ("No earlier event.", "Aucun événement plus tôt."),
    // timeline
    ("show/hide the timeline (call depth, events, mode changes; click or drag to move)", "afficher/masquer la frise (profondeur d’appel, événements, changements de mode ; cliquer ou glisser pour se déplacer)"),
    ("Timeline: call depth, events and mode changes over the whole trace; click or drag to move", "Frise : profondeur d’appel, événements et changements de mode sur toute la trace ; cliquer ou glisser pour se déplacer"),
    ("Call depth (blue), exceptions (red), aborts (orange), unparsed lines (purple), mode changes (green), the lines shown (yellow); click or drag to move", "Profondeur d’appel (bleu), exceptions (rouge), abandons (orange), lignes non comprises (violet), changements de mode (vert), lignes affichées (jaune) ; cliquer ou glisser pour se déplacer"),
    ("Close (T)", "Fermer (T)"),
    // Reports panel (components/reports/).
    ("Call tree", "Arbre des appels"),
    ("Click a frame to zoom into it, the bottom frame or Esc to zoom out.", "Cliquer sur un cadre pour l’agrandir, sur le cadre du bas ou Échap pour revenir en arrière."),
    ("Download", "Télécharger"),
    ("Flame graph", "Graphe en flammes"),
    ("Profile", "Profil"),
    ("Reports", "Rapports"),
    ("Starting the report worker…", "Démarrage du worker des rapports…"),
    ("The trace has no calls to draw.", "La trace n’a aucun appel à dessiner."),
    ("The trace has no instruction: there is no call tree.", "La trace n’a aucune instruction : il n’y a pas d’arbre des appels."),
    ("VCD", "VCD"),
    ("call tree", "arbre des appels"),
    ("collapse", "replier"),
    ("does not return", "ne revient pas"),
    ("expand", "déplier"),
    ("flame graph", "graphe en flammes"),
    ("folded stacks", "piles repliées"),
    ("go to the call in the trace view", "aller à l’appel dans la vue de la trace"),
    ("go to the return in the trace view", "aller au retour dans la vue de la trace"),
    ("highlight functions", "surligner des fonctions"),
    ("highlight functions…", "surligner des fonctions…"),
    ("{}: preparing…", "{} : préparation…"),
    ("profile", "profil"),
    ("zoom", "zoom"),
    ("The first {} of {} functions are shown; the download has them all.", "Les {} premières des {} fonctions sont affichées ; le téléchargement les contient toutes."),
    ("call l.{}", "appel l.{}"),
    ("entry l.{}", "entrée l.{}"),
    ("Functions are named by address: the ELF image was not used ({}).", "Les fonctions sont nommées par adresse : l’image ELF n’a pas été utilisée ({})."),
    ("return l.{}", "retour l.{}"),
    ("{} again ({} bytes)", "{} à nouveau ({} octets)"),
    ("time {}", "temps {}"),
    ("{} calls", "{} appels"),
    ("{} frames too narrow to draw are left out; zoom in to see them.", "{} cadres trop étroits pour être dessinés sont omis ; agrandir pour les voir."),
    ("{} instructions", "{} instructions"),
    ("{} matching frames", "{} cadres correspondants"),
    ("{} more calls…", "{} appels de plus…"),
    ("{}: time {} ({}% of {}), own time {}", "{} : temps {} ({} % de {}), temps propre {}"),
    ("{} calls of {} functions · {} instructions", "{} appels de {} fonctions · {} instructions"),
    ("Finding the calls: {} of {} bytes", "Recherche des appels : {} octets sur {}"),
    // EP cycle profile and program flow (components/reports/ep_*_view.rs, flow_view.rs, list_pager.rs).
    ("Branch", "Branchement"),
    ("Cycle profile", "Profil des cycles"),
    ("Cycle", "Cycle"),
    ("Cycles", "Cycles"),
    ("Discontinuities in trace order; click one to go to its line.", "Discontinuités dans l’ordre de la trace ; cliquer sur l’une pour aller à sa ligne."),
    ("EP size (bytes)", "Taille du paquet (octets)"),
    ("Earlier", "Précédents"),
    ("End", "Fin"),
    ("Flow", "Flot"),
    ("From", "De"),
    ("Instructions", "Instructions"),
    ("Latency", "Latence"),
    ("Later", "Suivants"),
    ("Line", "Ligne"),
    ("Loop buffer {}% of the SPLOOP cycles", "Tampon de boucle : {} % des cycles SPLOOP"),
    ("Packet cycles", "Cycles des paquets"),
    ("Program flow", "Flot du programme"),
    ("Records", "Enregistrements"),
    ("SPLOOP", "SPLOOP"),
    ("Set", "Jeu"),
    ("Stall cycles", "Cycles de blocage"),
    ("Start", "Début"),
    ("Straight-line runs between branches, in trace order; click one to go to the branch that left it.", "Suites sans branchement, dans l’ordre de la trace ; cliquer sur l’une pour aller au branchement qui la termine."),
    ("Target function", "Fonction cible"),
    ("Target", "Cible"),
    ("The first {} of {} blocks are listed; the download has them all.", "Les {} premiers blocs sur {} sont listés ; le téléchargement les contient tous."),
    ("The first {} of {} discontinuities are listed; the download counts the rest.", "Les {} premières discontinuités sur {} sont listées ; le téléchargement compte les autres."),
    ("The trace also has {} instruction lines: they show the flow themselves.", "La trace a aussi {} lignes d’instruction : elles montrent le flot elles-mêmes."),
    ("The trace has no discontinuities.", "La trace n’a aucune discontinuité."),
    ("The trace has no execute packets.", "La trace n’a aucun paquet d’exécution."),
    ("The trace has no program-flow lines (FD/FI/FR).", "La trace n’a aucune ligne de flot du programme (FD/FI/FR)."),
    ("Time", "Temps"),
    ("To", "Vers"),
    ("Unparsed lines", "Lignes non comprises"),
    ("an exception came in between: the block may not have run straight through", "une exception est survenue entre-temps : le bloc n’a peut-être pas été exécuté d’un trait"),
    ("cycle profile", "profil des cycles"),
    ("go to this line in the trace view", "aller à cette ligne dans la vue de la trace"),
    ("loop buffer", "tampon de boucle"),
    ("program flow", "flot du programme"),
    ("Chrome trace (Perfetto, speedscope)", "trace Chrome (Perfetto, speedscope)"),
    ("Perfetto trace (any size)", "trace Perfetto (toute taille)"),
    ("Callgrind (KCachegrind)", "Callgrind (KCachegrind)"),
    ("{}..{} ({} cycles)", "{}..{} ({} cycles)"),
    ("{}–{} of {}", "{}–{} sur {}"),
    ("Click an address to go to its first execute packet.", "Cliquer sur une adresse pour aller à son premier paquet d’exécution."),
    ("Lines not understood: {} (the events pane lists them).", "Lignes non comprises : {} (le volet des événements les liste)."),
    ("PC", "PC"),
    ("Packets", "Paquets"),
    ("Share", "Part"),
    ("Reading the trace: {} of {} bytes", "Lecture de la trace : {} octets sur {}"),
    ("EP trace: {} packet cycles at {} addresses · {} discontinuities", "Trace EP : {} cycles de paquets à {} adresses · {} discontinuités"),
    ("Branch-only trace: {} blocks · {} instructions", "Trace de branchements seuls : {} blocs · {} instructions"),
    ("{} cycles from the loop buffer ({} records) · {} packets from memory in {} cycles · {} epilogue discontinuities", "{} cycles depuis le tampon de boucle ({} enregistrements) · {} paquets depuis la mémoire en {} cycles · {} discontinuités d’épilogue"),
    ("Writing the VCD: {} of {} bytes", "Écriture du VCD : {} octets sur {}"),
    ("Address", "Adresse"),
    ("Time (inclusive)", "Temps (inclusif)"),
    ("Own time", "Temps propre"),
    ("Function", "Fonction"),
    ("show/hide the reports: call tree, profile, flame graph", "afficher/masquer les rapports : arbre des appels, profil, graphe en flammes"),
    ("the flame graph in the reports", "le graphe en flammes dans les rapports"),
    ("show the call at the position in the reports' call tree", "montrer l’appel à la position dans l’arbre des appels des rapports"),
    ("The call is number {} of its caller's calls: expand \"more\" to reach it.", "L’appel est le numéro {} des appels de son appelant : déplier « plus » pour l’atteindre."),
    // trace comparison (diff_view.rs)
    ("Compare with another trace: ", "Comparer avec une autre trace : "),
    ("compared with {}", "comparée avec {}"),
    ("Close comparison", "Fermer la comparaison"),
    ("Comparing the traces…", "Comparaison des traces…"),
    ("The comparison failed: {}", "La comparaison a échoué : {}"),
    ("No divergence in {} instructions.", "Aucune divergence en {} instructions."),
    ("at least {} divergences", "au moins {} divergences"),
    ("{} divergences", "{} divergences"),
    ("Previous divergence", "Divergence précédente"),
    ("Next divergence", "Divergence suivante"),
    ("Divergence {} of {}", "Divergence {} sur {}"),
    ("(trace ended)", "(trace terminée)"),
    ("encoding", "encodage"),
    ("memory 0x{} (written)", "mémoire 0x{} (écrite)"),
    ("memory 0x{} (read)", "mémoire 0x{} (lue)"),
    ("ends after {} instructions", "se termine après {} instructions"),
    ("end of trace", "fin de trace"),
    ("At instruction {}:", "À l’instruction {} :"),
    ("field", "champ"),
    ("instruction", "instruction"),
    ("instruction {}, lines {} / {}: {}", "instruction {}, lignes {} / {} : {}"),
    // Issue 31: file notices, ELF images, go-to-line notes, plurals and units.
    ("  … {} line folded", "  … {} ligne repliée"),
    ("Added to every symbol's address: 0x1000, -0x10, 4096", "Ajouté à l’adresse de chaque symbole : 0x1000, -0x10, 4096"),
    ("Cached indexes: {} ({})", "Index en cache : {} ({})"),
    ("Cached indexes: …", "Index en cache : …"),
    ("Call line", "Ligne de l’appel"),
    ("Clear", "Vider"),
    ("Downloading {} (the server does not serve byte ranges, so the whole trace is fetched)…", "Téléchargement de {} (le serveur ne sert pas de plages d’octets : la trace est téléchargée entière)…"),
    ("Index restored from the cache: this trace was indexed before.", "Index restauré depuis le cache : cette trace a déjà été indexée."),
    ("Read from the server in byte ranges, as needed: never downloaded whole.", "Lue sur le serveur par plages d’octets, au besoin : jamais téléchargée entière."),
    ("Downloaded whole: the server does not serve byte ranges.", "Téléchargée entière : le serveur ne sert pas de plages d’octets."),
    ("Answered by tarmac-lens serve from the trace's file and index: nothing is read into this page.", "Servie par tarmac-lens serve depuis le fichier de la trace et son index : rien n’est chargé dans cette page."),
    ("The tarmac-lens serve process has stopped answering: it was stopped, or the SSH tunnel to it closed. Run tarmac-lens serve again (and the tunnel) and open the URL it prints: each run has a new one.", "Le processus tarmac-lens serve ne répond plus : il a été arrêté, ou le tunnel SSH vers lui s’est fermé. Relancez tarmac-lens serve (et le tunnel) et ouvrez l’URL qu’il affiche : chaque lancement en a une nouvelle."),
    ("The tarmac-lens serve process that served this page has stopped: another one answers at this address, under a new URL. Open the URL it printed.", "Le processus tarmac-lens serve qui a servi cette page s’est arrêté : un autre répond à cette adresse, sous une nouvelle URL. Ouvrez l’URL qu’il a affichée."),
    ("The tarmac-lens serve process closed the connection: {}", "Le processus tarmac-lens serve a fermé la connexion : {}"),
    ("The core followed is chosen when the trace is served: tarmac-lens serve --cpu NAME.", "Le cœur suivi se choisit quand la trace est servie : tarmac-lens serve --cpu NOM."),
    ("A page served by tarmac-lens serve takes its ELF image from the command (--image) or dropped here, not from a URL.", "Une page servie par tarmac-lens serve prend son image ELF de la commande (--image) ou déposée ici, pas d’une URL."),
    ("Downloading {} of {} (the server does not serve byte ranges, so the whole trace is fetched)…", "Téléchargement de {} sur {} (le serveur ne sert pas de plages d’octets : la trace est téléchargée entière)…"),
    ("ELF image {} loaded ({} symbol); now drop its trace.", "Image ELF {} chargée ({} symbole) ; déposez maintenant sa trace."),
    ("ELF image {} loaded ({} symbols); now drop its trace.", "Image ELF {} chargée ({} symboles) ; déposez maintenant sa trace."),
    ("Go to", "Aller à"),
    ("Indexing {}… {}%", "Indexation de {}… {} %"),
    ("Line {} comes before the first instruction: the position is the trace's start, line {}.", "La ligne {} précède la première instruction : la position est le début de la trace, ligne {}."),
    ("Line {} is not indexed yet (lines 1–{} are).", "La ligne {} n’est pas encore indexée (les lignes 1–{} le sont)."),
    ("Line {} is part of the instruction at line {}.", "La ligne {} fait partie de l’instruction de la ligne {}."),
    ("Line {} is part of the position at line {}.", "La ligne {} fait partie de la position de la ligne {}."),
    ("Line {} is past the end: the trace ends at line {}.", "La ligne {} est au-delà de la fin : la trace se termine à la ligne {}."),
    ("List this function's calls", "Lister les appels de cette fonction"),
    ("Most lines of {} were not understood: is it a Tarmac trace, or one in a form Tarmac Lens does not read yet?", "La plupart des lignes de {} n’ont pas été comprises : est-ce une trace Tarmac, ou une trace sous une forme que Tarmac Lens ne lit pas encore ?"),
    ("No divergence in {} instruction.", "Aucune divergence en {} instruction."),
    ("No index cache in this browser ({}).", "Pas de cache d’index dans ce navigateur ({})."),
    ("No registers: the trace has no instruction.", "Aucun registre : la trace n’a aucune instruction."),
    ("See the list", "Voir la liste"),
    ("The load offset {} is not a number (0x1000, -0x10 or 4096).", "Le décalage de chargement {} n’est pas un nombre (0x1000, -0x10 ou 4096)."),
    ("The trace also has {} instruction line: it shows the flow itself.", "La trace a aussi {} ligne d’instruction : elle montre le flot elle-même."),
    ("There is nothing to browse: was the trace still being written?", "Il n’y a rien à parcourir : la trace était-elle encore en cours d’écriture ?"),
    ("This file is empty.", "Ce fichier est vide."),
    ("Waiting for a trace from the page…", "En attente d’une trace de la page…"),
    ("Warning: {}", "Attention : {}"),
    ("at least {} divergence", "au moins {} divergence"),
    ("call", "appel"),
    ("ends after {} instruction", "se termine après {} instruction"),
    ("line {} · time {} · instruction {}", "ligne {} · temps {} · instruction {}"),
    ("line {} · time {}", "ligne {} · temps {}"),
    ("nothing to show: the trace has no instruction", "rien à montrer : la trace n’a aucune instruction"),
    ("return", "retour"),
    ("{} (changes since the last position)", "{} (changements depuis la dernière position)"),
    ("{} ({} byte)", "{} ({} octet)"),
    ("{} B", "{} o"),
    ("{} MB/s", "{} Mo/s"),
    ("– MB/s", "– Mo/s"),
    ("KiB", "Kio"),
    ("MiB", "Mio"),
    ("GiB", "Gio"),
    ("TiB", "Tio"),
    ("PiB", "Pio"),
    ("{} byte at {}", "{} octet à {}"),
    ("{} byte", "{} octet"),
    ("{} call", "{} appel"),
    ("{} divergence", "{} divergence"),
    ("{} does not look like a Tarmac trace: line {} (\"{}\") is in no trace format.", "{} ne ressemble pas à une trace Tarmac : la ligne {} (« {} ») n’est dans aucun format de trace."),
    ("{} frame too narrow to draw is left out; zoom in to see it.", "{} cadre trop étroit pour être dessiné est omis ; agrandir pour le voir."),
    ("{} function", "{} fonction"),
    ("{} functions", "{} fonctions"),
    ("{} holds binary data, not a Tarmac trace (a text file).", "{} contient des données binaires, pas une trace Tarmac (un fichier texte)."),
    ("{} instruction", "{} instruction"),
    ("{} is a {} archive, not a Tarmac trace. Extract the trace from it first.", "{} est une archive {}, pas une trace Tarmac. Extrayez-en d’abord la trace."),
    ("{} is a {} file, not a Tarmac trace.", "{} est un fichier {}, pas une trace Tarmac."),
    ("{} is a {}-compressed file, not a Tarmac trace. Decompress it first ({} {}) and open the result.", "{} est un fichier compressé ({}), pas une trace Tarmac. Décompressez-le d’abord ({} {}) et ouvrez le résultat."),
    ("{} is an ELF executable, not a Tarmac trace. Give it as the trace's ELF image (for symbols) and open the trace itself.", "{} est un exécutable ELF, pas une trace Tarmac. Donnez-le comme image ELF de la trace (pour les symboles) et ouvrez la trace elle-même."),
    ("{} match so far, {}% searched", "{} correspondance pour l’instant, {} % parcourus"),
    ("{} match", "{} correspondance"),
    ("{} matching frame", "{} cadre correspondant"),
    ("{} more call…", "{} appel de plus…"),
    ("{} of its {} lines were not understood.", "{} de ses {} lignes n’ont pas été comprises."),
    ("{} symbol loaded", "{} symbole chargé"),
    ("{}..{} ({} cycle)", "{}..{} ({} cycle)"),
    ("{}: reading its calls…", "{} : lecture de ses appels…"),
    ("{}: {} call", "{} : {} appel"),
    ("{}: {} calls", "{} : {} appels"),
    ("PNG image", "image PNG"),
    ("JPEG image", "image JPEG"),
    ("GIF image", "image GIF"),
    ("WebP image", "image WebP"),
    ("PDF", "PDF"),
    ("document", "document"),
    ("Instructions %", "Instructions %"),
    ("Own %", "Propre %"),
    ("mark the registers changed since the last position, or (again) those the instruction wrote", "marquer les registres changés depuis la dernière position, ou (à nouveau) ceux que l’instruction a écrits"),
    ("Resize the side area", "Redimensionner la zone latérale"),
    ("Resize the bottom area", "Redimensionner la zone du bas"),
    ("Move to the bottom area (A)", "Déplacer vers la zone du bas (A)"),
    ("Move to the side area (A)", "Déplacer vers la zone latérale (A)"),
    ("Show the pane", "Afficher le panneau"),
    ("Collapse to the header", "Réduire à l’en-tête"),
    ("Drop another trace here, or", "Déposez une autre trace ici, ou"),
    ("Open…", "Ouvrir…"),
    ("ELF image…", "Image ELF…"),
    ("Compare…", "Comparer…"),
    ("Registers", "Registres"),
    ("Panes", "Panneaux"),
    ("Trace", "Trace"),
    ("Timeline", "Frise"),
    ("Reset the layout", "Réinitialiser la disposition"),
    ("widen the side area (or drag its splitter)", "élargir la zone latérale (ou faire glisser son séparateur)"),
    ("narrow the side area", "rétrécir la zone latérale"),
    ("make the bottom area taller (or drag its splitter)", "agrandir la zone du bas (ou faire glisser son séparateur)"),
    ("make the bottom area shorter", "réduire la zone du bas"),
    ("reset the layout: areas' sizes, where each pane sits", "réinitialiser la disposition : taille des zones, place de chaque panneau"),
    ("move this kind of pane to the other area (side or bottom)", "déplacer ce type de panneau vers l’autre zone (latérale ou du bas)"),
    // bookmarks
    ("show/hide the bookmarks (line, time, function, note; click one to go there)", "afficher/masquer les signets (ligne, temps, fonction, note ; cliquer sur l’un pour y aller)"),
    ("next bookmark", "signet suivant"),
    ("previous bookmark", "signet précédent"),
    ("bookmark the position with an optional note, or remove its bookmark", "poser un signet à la position, avec une note facultative, ou retirer son signet"),
    ("Bookmark note (Return alone: none):", "Note du signet (Entrée seule : aucune) :"),
    ("Bookmark at line {} removed.", "Signet de la ligne {} retiré."),
    ("No bookmarks: b marks the position.", "Aucun signet : b marque la position."),
    ("No later bookmark.", "Pas de signet plus loin."),
    ("No earlier bookmark.", "Pas de signet plus tôt."),
    ("Some bookmarks kept for this trace could not be read: {}", "Certains signets gardés pour cette trace n’ont pas pu être lus : {}"),
    ("The bookmarks kept for this trace could not be read: {}", "Les signets gardés pour cette trace n’ont pas pu être lus : {}"),
    ("Imported {} bookmark ({} new).", "{} signet importé ({} nouveau)."),
    ("Imported {} bookmarks ({} new).", "{} signets importés ({} nouveaux)."),
    ("Not read: {}", "Non lus : {}"),
    ("Cannot import the bookmarks: {}", "Impossible d’importer les signets : {}"),
    ("Some bookmarks in the URL could not be read: {}", "Certains signets de l’URL n’ont pas pu être lus : {}"),
    ("a bad %-escape at \"{}\"", "un échappement % invalide à « {} »"),
    ("a note that is not UTF-8", "une note qui n’est pas en UTF-8"),
    ("\"{}\": \"{}\" is not a line number", "« {} » : « {} » n’est pas un numéro de ligne"),
    ("it is not JSON ({})", "ce n’est pas du JSON ({})"),
    ("it is not a bookmarks export (no \"format\": \"{}\")", "ce n’est pas un export de signets (pas de \"format\": \"{}\")"),
    ("it has no \"bookmarks\" list", "il n’a pas de liste \"bookmarks\""),
    ("bookmark {} has no line number", "le signet {} n’a pas de numéro de ligne"),
    ("The bookmark at line {} was removed: the trace has no such line.", "Le signet de la ligne {} a été retiré : la trace n’a pas cette ligne."),
    ("Bookmarks", "Signets"),
    ("Bookmarks: {}", "Signets : {}"),
    ("Export JSON", "Exporter en JSON"),
    ("Save the bookmarks as a JSON file", "Enregistrer les signets dans un fichier JSON"),
    ("Import JSON…", "Importer du JSON…"),
    ("Add the bookmarks of a JSON export", "Ajouter les signets d’un export JSON"),
    ("Close (B)", "Fermer (B)"),
    ("No bookmarks: b marks the position, or click a row's gutter.", "Aucun signet : b marque la position, ou cliquez dans la marge d’une ligne."),
    ("Note", "Note"),
    ("note", "note"),
    ("Note of the bookmark at line {}", "Note du signet de la ligne {}"),
    ("Remove this bookmark", "Retirer ce signet"),
    ("Remove the bookmark", "Retirer le signet"),
    ("Bookmark this line (b)", "Poser un signet sur cette ligne (b)"),
    ("The bookmarks could not be kept in this browser ({}); the URL still has them.", "Les signets n’ont pas pu être gardés dans ce navigateur ({}) ; l’URL les contient toujours."),
    ("Function {}: its {} call", "Fonction {} : son appel ({})"),
    ("Function {}: its {} calls", "Fonction {} : ses {} appels"),
    ("Function {}: its calls", "Fonction {} : ses appels"),
    // key names in the help and the palette (`key_label`), as French
    // keyboards and manuals name them
    ("Ctrl", "Ctrl"),
    ("Shift", "Maj"),
    ("Backspace", "Retour arrière"),
    ("Down", "Bas"),
    ("Up", "Haut"),
    ("Left", "Gauche"),
    ("Right", "Droite"),
    ("Home", "Origine"),
    ("PgDn", "Pg suiv"),
    ("PgUp", "Pg préc"),
    ("Return", "Entrée"),
    ("Tab", "Tab"),
    // record kinds in the Summary (`record_kind_text`)
    ("blank", "vide"),
    ("comment", "commentaire"),
    ("header", "en-tête"),
    ("register", "registre"),
    ("register list", "liste de registres"),
    ("branch", "branchement"),
    ("bus", "bus"),
    ("cache", "cache"),
    ("cache maintenance", "maintenance de cache"),
    ("table walk", "parcours de table"),
    ("TLB", "TLB"),
    ("system operation", "opération système"),
    ("EP trace", "trace EP"),
    ("coprocessor transfer", "transfert coprocesseur"),
    ("text", "texte"),
    ("unparsed", "non comprise"),
    // coverage
    ("(no source line)", "(sans ligne source)"),
];
