//! A generated catalog of tools for the search tests and bench: filler tools built from a
//! vocabulary of common API words, plus hand-written tools each query is meant to find.

use std::sync::Arc;

use registry_core::ToolDefinition;
use serde_json::json;

/// The hand-written tools (id, name, description, function name, function description,
/// a parameter description) and the query meant to find each, worded differently.
pub const INTENDED: [(&str, &str, &str, &str, &str, &str, &str); 20] = [
    (
        "weather-forecast@1.0.0",
        "weather_forecast",
        "Seven-day weather forecast for a city",
        "get_forecast",
        "Daily temperatures and rain for the next days",
        "City name",
        "rain forecast next week",
    ),
    (
        "currency-convert@1.0.0",
        "currency_convert",
        "Converts amounts between currencies at today's exchange rate",
        "convert",
        "Convert an amount of money",
        "ISO 4217 currency code",
        "exchange rate euros to dollars",
    ),
    (
        "pdf-extract@1.0.0",
        "pdf_extract",
        "Extracts text and tables from PDF documents",
        "extract_text",
        "Plain text of every page",
        "Document URL",
        "get text out of a pdf",
    ),
    (
        "calendar-book@1.0.0",
        "calendar_book",
        "Books meetings in shared calendars",
        "book_meeting",
        "Reserve a slot with attendees",
        "Attendee emails",
        "schedule a meeting with attendees",
    ),
    (
        "translate-text@1.0.0",
        "translate_text",
        "Translates text between languages",
        "translate",
        "Translate a passage into a target language",
        "Target language",
        "translate this passage to german language",
    ),
    (
        "stock-quote@1.0.0",
        "stock_quote",
        "Latest stock prices and quotes from the exchange",
        "get_quote",
        "Last traded price of a ticker symbol",
        "Ticker symbol",
        "share price of a ticker",
    ),
    (
        "flight-status@1.0.0",
        "flight_status",
        "Departure and arrival status of airline flights",
        "flight_status",
        "Whether a flight is delayed",
        "Flight number",
        "is my flight delayed",
    ),
    (
        "shipping-track@1.0.0",
        "shipping_track",
        "Tracks parcels across couriers",
        "track_parcel",
        "Where a parcel is now",
        "Tracking number",
        "where is my parcel tracking",
    ),
    (
        "sql-runner@1.0.0",
        "sql_runner",
        "Runs read-only SQL queries against the warehouse",
        "run_query",
        "Execute a SELECT statement",
        "SQL text",
        "execute a select sql statement",
    ),
    (
        "image-resize@1.0.0",
        "image_resize",
        "Resizes and crops images",
        "resize",
        "Scale an image to a width and height",
        "Width in pixels",
        "scale a picture to smaller pixels",
    ),
    (
        "email-send@1.0.0",
        "email_send",
        "Sends transactional email",
        "send_email",
        "Deliver an email to recipients",
        "Recipient address",
        "deliver an email to a recipient",
    ),
    (
        "dns-lookup@1.0.0",
        "dns_lookup",
        "Resolves DNS records for domains",
        "resolve_record",
        "A, AAAA, MX and TXT records of a domain",
        "Domain name",
        "mx records of a domain",
    ),
    (
        "vat-validate@1.0.0",
        "vat_validate",
        "Validates European VAT numbers",
        "check_vat",
        "Whether a VAT number is registered",
        "VAT number",
        "is this vat number valid",
    ),
    (
        "holiday-list@1.0.0",
        "holiday_list",
        "Public holidays by country and year",
        "list_holidays",
        "Bank holidays of a year",
        "Country code",
        "public bank holidays in a country",
    ),
    (
        "geocode@1.0.0",
        "geocode",
        "Turns street addresses into coordinates",
        "geocode_address",
        "Latitude and longitude of an address",
        "Street address",
        "latitude longitude of a street address",
    ),
    (
        "password-strength@1.0.0",
        "password_strength",
        "Scores password strength and entropy",
        "score_password",
        "Entropy estimate of a password",
        "Candidate password",
        "how strong is this password entropy",
    ),
    (
        "timezone-convert@1.0.0",
        "timezone_convert",
        "Converts times between time zones",
        "convert_time",
        "A wall-clock time in another zone",
        "IANA zone name",
        "what time is it in another timezone zone",
    ),
    (
        "barcode-read@1.0.0",
        "barcode_read",
        "Decodes barcodes and QR codes in photos",
        "decode_barcode",
        "Text encoded in a QR code",
        "Photo URL",
        "decode qr code photo",
    ),
    (
        "invoice-create@1.0.0",
        "invoice_create",
        "Creates customer invoices in the billing system",
        "create_invoice",
        "Bill a customer for line items",
        "Line items",
        "bill a customer invoice",
    ),
    (
        "sentiment-score@1.0.0",
        "sentiment_score",
        "Scores the sentiment of customer reviews",
        "analyze_sentiment",
        "Positive or negative tone of a text",
        "Review text",
        "positive or negative tone of reviews",
    ),
];

const NOUNS: [&str; 24] = [
    "record", "account", "order", "user", "item", "entry", "report", "file", "ticket", "task",
    "project", "asset", "contact", "profile", "resource", "event", "message", "note", "log",
    "batch", "job", "queue", "metric", "setting",
];
const VERBS: [&str; 12] = [
    "list", "get", "update", "delete", "create", "sync", "archive", "export", "import", "fetch",
    "search", "count",
];
const SYSTEMS: [&str; 10] =
    ["crm", "erp", "hr", "ledger", "inventory", "helpdesk", "wiki", "storage", "analytics", "cms"];

fn tool(
    id: &str,
    name: &str,
    description: &str,
    function: &str,
    function_description: &str,
    parameter: &str,
) -> ToolDefinition {
    let value = json!({
        "toolId": id,
        "executionType": "mcp",
        "name": name,
        "displayName": name,
        "description": description,
        "url": "https://mcp.example.com/mcp",
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": [{
            "name": function,
            "description": function_description,
            "parameters": {"input": {"type": "string", "description": parameter, "required": true}}
        }],
        "tags": {"team": "generated"}
    });
    serde_json::from_value(value).unwrap_or_else(|e| panic!("tool {id}: {e}"))
}

/// `filler` generated tools followed by the intended ones.
pub fn catalog(filler: usize) -> Vec<Arc<ToolDefinition>> {
    let mut tools = Vec::with_capacity(filler + INTENDED.len());
    for i in 0..filler {
        let noun = NOUNS[i % NOUNS.len()];
        let verb = VERBS[(i / NOUNS.len()) % VERBS.len()];
        let system = SYSTEMS[(i / (NOUNS.len() * VERBS.len())) % SYSTEMS.len()];
        let name = format!("{system}_{verb}_{noun}_{i}");
        tools.push(Arc::new(tool(
            &format!("{system}-{verb}-{noun}-{i}@1.0.0"),
            &name,
            &format!("{verb} {noun} data in the {system} system for a customer"),
            &format!("{verb}_{noun}"),
            &format!("{verb} one {noun} of the {system} by id, the next page of results"),
            &format!("The {noun} id"),
        )));
    }
    for (id, name, description, function, function_description, parameter, _) in INTENDED {
        tools.push(Arc::new(tool(
            id,
            name,
            description,
            function,
            function_description,
            parameter,
        )));
    }
    tools
}
