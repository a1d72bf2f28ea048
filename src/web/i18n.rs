//! The one translation layer of the page, in the manner of gettext: UI
//! strings are written in English at their call site and go through [`t`]
//! (or [`tf`] when they have arguments, `{}` in order), which returns the
//! current language's text, English when a catalogue lacks one.
//!
//! The language comes from a choice the person made (kept in
//! `localStorage`), else from `navigator.languages`. Components that show
//! text subscribe to [`use_lang`], so switching re-renders them; text a
//! component keeps (status messages) is translated when it is made.

use std::cell::Cell;
use std::fmt::Display;

use yew::prelude::*;

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

/// Where the person's choice is kept.
const STORAGE_KEY: &str = "tarmac-lens.lang";

thread_local! {
    static CURRENT: Cell<Option<Lang>> = const { Cell::new(None) };
}

/// The language of the page: chosen at first use, then as [`set`] makes it.
pub fn current() -> Lang {
    CURRENT.with(|c| match c.get() {
        Some(lang) => lang,
        None => {
            let lang = detect();
            c.set(Some(lang));
            lang
        }
    })
}

fn storage() -> Option<web_sys::Storage> {
    // localStorage throws where storage is disabled (and may on file://).
    web_sys::window()?.local_storage().ok().flatten()
}

/// The stored choice, else the first of the browser's languages we have.
fn detect() -> Lang {
    if let Some(lang) = storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .and_then(|tag| Lang::from_tag(&tag))
    {
        return lang;
    }
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else {
        return Lang::En;
    };
    navigator
        .languages()
        .iter()
        .filter_map(|v| v.as_string())
        .chain(navigator.language())
        .find_map(|tag| Lang::from_tag(&tag))
        .unwrap_or_default()
}

/// Makes `lang` the page's language and remembers the choice.
pub fn set(lang: Lang) {
    CURRENT.with(|c| c.set(Some(lang)));
    if let Some(s) = storage() {
        let _ = s.set_item(STORAGE_KEY, lang.code());
    }
    sync_document(lang);
}

/// `<html lang>` follows the language (screen readers, hyphenation).
pub fn sync_document(lang: Lang) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.code());
    }
}

/// `english` in the current language.
pub fn t(english: &'static str) -> &'static str {
    lookup(current(), english)
}

pub fn lookup(lang: Lang, english: &'static str) -> &'static str {
    lang.catalogue()
        .iter()
        .find(|(en, _)| *en == english)
        .map_or(english, |(_, text)| text)
}

/// [`t`] with arguments: each `{}` of the text takes the next one.
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

/// The language, from the page's context: a component that shows text
/// calls this so that it re-renders when the language changes.
#[hook]
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_else(current)
}

/// The language switch (in the page header).
#[derive(Properties, PartialEq)]
pub struct LanguageSwitchProps {
    pub lang: Lang,
    pub on_change: Callback<Lang>,
}

#[function_component(LanguageSwitch)]
pub fn language_switch(props: &LanguageSwitchProps) -> Html {
    let onchange = props.on_change.reform(|e: Event| {
        e.target_dyn_into::<web_sys::HtmlSelectElement>()
            .and_then(|s| Lang::from_tag(&s.value()))
            .unwrap_or_default()
    });
    html! {
        <select class="language" data-testid="language" aria-label={t("Language")} title={t("Language")} style="margin-left:auto;" {onchange}>
            { for Lang::ALL.iter().map(|l| html! {
                <option value={l.code()} lang={l.code()} selected={*l == props.lang}>{ l.name() }</option>
            }) }
        </select>
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
    ("Registers:", "Registres :"),
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
    ("F1 or ? for the keys of the focused pane; Tab moves between panes.", "F1 ou ? pour les touches du volet actif ; Tab passe d’un volet à l’autre."),
    // panes
    ("Core registers", "Registres principaux"),
    ("Single-precision FP", "Virgule flottante simple précision"),
    ("Double-precision FP", "Virgule flottante double précision"),
    ("NEON vectors", "Vecteurs NEON"),
    ("MVE vectors", "Vecteurs MVE"),
    ("SVE vectors", "Vecteurs SVE"),
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
    ("Lock pane to line:", "Verrouiller le volet à la ligne :"),
    ("Lock pane to time:", "Verrouiller le volet au temps :"),
    ("Compare with line:", "Comparer avec la ligne :"),
    ("Trace pane keys", "Touches du volet de trace"),
    ("Register pane keys", "Touches du volet des registres"),
    ("Memory pane keys", "Touches du volet mémoire"),
    ("Close (any key)", "Fermer (n’importe quelle touche)"),
    // status messages
    ("Not found.", "Introuvable."),
    ("No such position in the trace.", "Cette position n’existe pas dans la trace."),
    ("No earlier write in the trace.", "Aucune écriture antérieure dans la trace."),
    ("This instruction has no lines.", "Cette instruction n’a pas de lignes."),
    ("No PC searched for yet (p or P).", "Aucun PC encore cherché (p ou P)."),
];
