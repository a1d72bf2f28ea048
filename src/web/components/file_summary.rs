//! Name, size and line count of the loaded trace.

use yew::prelude::*;

use crate::web::page::i18n::{t, tn, use_lang};

use crate::web::page::format;

#[derive(Properties, PartialEq)]
pub struct FileSummaryProps {
    pub name: AttrValue,
    pub bytes: u64,
    /// Known once the whole file has been read.
    #[prop_or_default]
    pub lines: Option<u64>,
    #[prop_or_default]
    pub dialect: Option<String>,
}

#[function_component(FileSummary)]
pub fn file_summary(props: &FileSummaryProps) -> Html {
    use_lang();
    let cell = "padding:0.15rem 1rem 0.15rem 0;text-align:left;width:6rem;vertical-align:top;";
    html! {
        <table class="file-summary" data-testid="file-summary" style="border-collapse:separate;border-spacing:0;">
            <tbody>
                <tr>
                    <th scope="row" style={cell}>{ t("File") }</th>
                    <td data-testid="file-name" style="word-break:break-all;">{ props.name.clone() }</td>
                </tr>
                <tr>
                    <th scope="row" style={cell}>{ t("Size") }</th>
                    <td
                        data-testid="file-size"
                        data-bytes={props.bytes.to_string()}
                        title={tn(props.bytes, "{} byte", "{} bytes", &[&format::thousands(props.bytes)])}
                    >
                        { tn(props.bytes, "{} ({} byte)", "{} ({} bytes)", &[&format::bytes(props.bytes), &format::thousands(props.bytes)]) }
                    </td>
                </tr>
                if let Some(lines) = props.lines {
                    <tr>
                        <th scope="row" style={cell}>{ t("Lines") }</th>
                        <td data-testid="line-count" data-lines={lines.to_string()}>
                            { format::thousands(lines) }
                        </td>
                    </tr>
                }
                if let Some(dialect) = &props.dialect {
                    <tr>
                        <th scope="row" style={cell}>{ t("Dialect") }</th>
                        <td data-testid="dialect">{ dialect.clone() }</td>
                    </tr>
                }
            </tbody>
        </table>
    }
}
