package catalog

// The curated word lists of tool search: what people call the applications,
// the verbs that say what a request wants done, and the applications the
// built-in catalog does not have. They are data, kept out of the ranking
// code; a project's own connectors are found by their id and name without
// an entry here.

// connectorAliases are the names, abbreviations and product names people
// type for a built-in connector, lowercase; a phrase is several words. An
// alias of a connector the catalog does not hold is ignored.
var connectorAliases = map[string][]string{
	"airtable":        {"airtable", "air table"},
	"asana":           {"asana"},
	"aws_s3":          {"s3", "aws s3", "amazon s3", "simple storage service"},
	"bamboohr":        {"bamboohr", "bamboo hr", "bamboo"},
	"box":             {"box", "box.com"},
	"calendly":        {"calendly"},
	"chargebee":       {"chargebee", "charge bee"},
	"cal_com":         {"cal.com", "calcom", "cal com"},
	"clickup":         {"clickup", "click up"},
	"cloudflare":      {"cloudflare", "cf"},
	"close_crm":       {"close crm", "close.com", "close io", "closeio"},
	"confluence":      {"confluence"},
	"discord":         {"discord"},
	"dropbox":         {"dropbox", "drop box"},
	"figma":           {"figma", "figjam"},
	"front":           {"frontapp", "front app"},
	"github":          {"github", "gh", "git hub", "github actions", "actions", "gist"},
	"gitlab":          {"gitlab", "git lab", "gitlab ci"},
	"gmail":           {"gmail", "google mail", "gmail.com"},
	"google_calendar": {"google calendar", "gcal", "gcalendar", "g cal", "google cal"},
	"google_docs":     {"google docs", "google doc", "gdoc", "gdocs", "g doc", "g docs"},
	"google_drive":    {"google drive", "gdrive", "g drive", "drive", "my drive", "shared drive"},
	"google_sheets":   {"google sheets", "google sheet", "gsheet", "gsheets", "g sheets", "sheets"},
	"greenhouse":      {"greenhouse", "greenhouse recruiting"},
	"harvest":         {"harvest", "harvestapp", "getharvest"},
	"help_scout":      {"help scout", "helpscout"},
	"hubspot":         {"hubspot", "hub spot"},
	"intercom":        {"intercom"},
	"jira":            {"jira", "jql", "jira cloud"},
	"linear":          {"linear", "linear.app"},
	"mailchimp":       {"mailchimp", "mail chimp", "mc"},
	"microsoft_teams": {"microsoft teams", "ms teams", "msteams", "teams"},
	"mixpanel":        {"mixpanel", "mix panel"},
	"monday":          {"monday", "monday.com", "mondaycom", "monday board"},
	"notion":          {"notion"},
	"okta":            {"okta"},
	"outlook":         {"outlook", "office 365", "o365", "microsoft 365", "m365", "hotmail", "outlook.com", "exchange online"},
	"pagerduty":       {"pagerduty", "pager duty", "pd"},
	"paypal":          {"paypal", "pay pal"},
	"pipedrive":       {"pipedrive", "pipe drive"},
	"posthog":         {"posthog", "post hog"},
	"quickbooks":      {"quickbooks", "quick books", "qbo", "qb", "intuit"},
	"salesforce":      {"salesforce", "sales force", "sfdc", "sf", "soql", "sosl"},
	"sendgrid":        {"sendgrid", "send grid", "sg"},
	"sentry":          {"sentry"},
	"shopify":         {"shopify"},
	"slack":           {"slack"},
	"square":          {"square", "square pos"},
	"stripe":          {"stripe"},
	"todoist":         {"todoist"},
	"trello":          {"trello"},
	"twilio":          {"twilio"},
	"xero":            {"xero"},
	"zendesk":         {"zendesk", "zen desk"},
	"zoom":            {"zoom"},
}

// commonAliases are aliases that are also everyday words ("drive",
// "teams", "box", "monday"): they name the application only when no other
// application is named, and only weakly.
var commonAliases = setOf("drive", "my drive", "teams", "box", "monday", "square", "actions",
	"sheets", "mc", "sg", "sf", "pd", "cf", "qb", "exchange online", "front", "harvest", "bamboo")

// dayContext are words that make "monday" a day rather than the application.
var dayContext = setOf("on", "next", "this", "last", "every", "until", "by", "since", "before", "after",
	"from", "till", "through", "morning", "afternoon", "evening", "night", "at", "noon")

// connectorHints are words that point at a few connectors without naming
// one: they add a weaker boost to each.
var connectorHints = map[string][]string{
	"crm":                {"hubspot", "salesforce", "pipedrive"},
	"wiki":               {"confluence", "notion"},
	"sms":                {"twilio"},
	"text message":       {"twilio"},
	"phone call":         {"twilio"},
	"phone number":       {"twilio"},
	"cdn":                {"cloudflare"},
	"dns":                {"cloudflare"},
	"sso":                {"okta"},
	"identity provider":  {"okta"},
	"idp":                {"okta"},
	"on call":            {"pagerduty"},
	"oncall":             {"pagerduty"},
	"aws":                {"aws_s3"},
	"feature flag":       {"posthog"},
	"feature flags":      {"posthog"},
	"product analytics":  {"posthog", "mixpanel"},
	"newsletter":         {"mailchimp"},
	"transactional":      {"sendgrid"},
	"kanban":             {"trello", "monday"},
	"google":             {"google_drive", "google_docs", "google_sheets", "google_calendar", "gmail"},
	"microsoft":          {"microsoft_teams", "outlook"},
	"ci":                 {"github", "gitlab"},
	"sprint":             {"jira"},
	"story points":       {"jira"},
	"support ticket":     {"zendesk"},
	"helpdesk":           {"zendesk"},
	"help desk":          {"zendesk"},
	"messenger":          {"intercom"},
	"live chat":          {"intercom"},
	"accounting":         {"quickbooks", "xero"},
	"bookkeeping":        {"quickbooks", "xero"},
	"online store":       {"shopify"},
	"storefront":         {"shopify"},
	"point of sale":      {"square"},
	"booking link":       {"calendly"},
	"scheduling link":    {"calendly"},
	"todo list":          {"todoist"},
	"to-do list":         {"todoist"},
	"cloud files":        {"google_drive", "dropbox", "box"},
	"issue tracker":      {"jira", "linear", "github"},
	"project management": {"asana", "jira", "monday"},
	"repo":               {"github", "gitlab"},
	"repos":              {"github", "gitlab"},
	"repository":         {"github", "gitlab"},
	"repositories":       {"github", "gitlab"},
	"pr":                 {"github"},
	"prs":                {"github"},
	"pull request":       {"github"},
	"pull requests":      {"github"},
	"mr":                 {"gitlab"},
	"merge request":      {"gitlab"},
	"recording":          {"zoom"},
	"recordings":         {"zoom"},
	"webinar":            {"zoom"},
	"email":              {"gmail", "outlook"},
	"emails":             {"gmail", "outlook"},
	"inbox":              {"gmail", "outlook"},
	"ticket":             {"zendesk", "jira"},
	"tickets":            {"zendesk", "jira"},
	"store":              {"shopify", "square"},
	"shop":               {"shopify", "square"},
	"cafe":               {"square"},
	"coffee shop":        {"square"},
	"restaurant":         {"square"},
	"in store":           {"square"},
	"pos":                {"square"},
}

// foreignApps are well-known applications and services the built-in
// catalog has no connector for. A request that names one and no connector
// of the catalog is answered "no good match" unless a tool covers it well.
var foreignApps = setOf("spotify", "uber", "lyft", "instagram", "facebook", "twitter", "tweet", "youtube",
	"tiktok", "linkedin", "whatsapp", "telegram", "wechat", "snapchat", "pinterest", "reddit", "amazon",
	"ebay", "etsy", "fedex", "dhl", "usps", "azure", "gcp", "heroku", "netlify", "kubernetes",
	"k8s", "docker", "ec2", "lambda", "rds", "dynamodb", "cloudwatch", "iam", "newrelic",
	"grafana", "splunk", "servicenow", "helpscout", "workday", "bamboohr", "gusto", "adp",
	"expensify", "concur", "wordpress", "wix", "squarespace", "statuspage", "opsgenie",
	"circleci", "jenkins", "vimeo", "twitch", "netflix", "doordash", "ubereats", "grubhub",
	"instacart", "airbnb", "expedia", "venmo", "coinbase", "robinhood", "docusign", "hellosign",
	"evernote", "onenote", "powerpoint", "canva", "loom", "webex", "skype", "ringcentral", "zapier",
	"ifttt", "alexa", "siri", "tesla", "fitbit", "strava", "postgres", "postgresql", "mysql", "mongodb",
	"redis", "snowflake", "bigquery", "databricks", "tableau", "looker", "amplitude", "hotjar", "braze",
	"marketo", "pardot", "activecampaign", "zoho", "freshsales", "gong", "greenhouse", "lever",
	"wikipedia", "yelp", "opentable", "tripadvisor", "kayak", "booking.com", "imessage", "gitea", "bamboo",
	"okr", "openai", "chatgpt", "dynamics", "netsuite", "sap", "oracle", "smartsheet", "basecamp", "wrike",
	"youtrack", "bugsnag", "rollbar", "opsgenie", "zenhub", "surveymonkey", "eventbrite")

// Verb classes: what a request or a tool does.
const (
	intentNone = iota
	intentRead
	intentCreate
	intentUpdate
	intentRemove
)

// queryVerbs maps a word of a request to the class of what it asks for.
var queryVerbs = map[string]int{
	"list": intentRead, "show": intentRead, "get": intentRead, "find": intentRead, "search": intentRead,
	"look": intentRead, "lookup": intentRead, "fetch": intentRead, "read": intentRead, "view": intentRead,
	"check": intentRead, "see": intentRead, "browse": intentRead, "retrieve": intentRead, "query": intentRead,
	"what": intentRead, "whats": intentRead, "who": intentRead, "when": intentRead, "which": intentRead,
	"where": intentRead, "how": intentRead, "whos": intentRead, "am": intentRead, "download": intentRead,
	"export": intentRead, "pull": intentRead, "count": intentRead, "describe": intentRead, "track": intentCreate,
	"create": intentCreate, "add": intentCreate, "new": intentCreate, "make": intentCreate, "post": intentCreate,
	"send": intentCreate, "schedule": intentCreate, "book": intentCreate, "write": intentCreate,
	"draft": intentCreate, "start": intentCreate, "log": intentCreate, "record": intentCreate,
	"text": intentCreate, "email": intentCreate, "message": intentCreate, "dm": intentCreate,
	"ping": intentCreate, "invite": intentCreate, "upload": intentCreate, "put": intentCreate,
	"append": intentCreate, "insert": intentCreate, "capture": intentCreate, "trigger": intentCreate,
	"page": intentCreate, "comment": intentCreate, "reply": intentCreate, "forward": intentCreate,
	"share": intentCreate, "issue": intentCreate, "charge": intentCreate, "refund": intentCreate,
	"notify": intentCreate, "announce": intentCreate, "tell": intentCreate, "open": intentCreate,
	"raise": intentCreate, "file": intentCreate, "submit": intentCreate, "call": intentCreate,
	"subscribe": intentCreate, "fork": intentCreate, "copy": intentCreate, "run": intentCreate,
	"rerun": intentUpdate, "retry": intentUpdate,
	"update": intentUpdate, "edit": intentUpdate, "change": intentUpdate, "move": intentUpdate,
	"rename": intentUpdate, "set": intentUpdate, "modify": intentUpdate, "mark": intentUpdate,
	"assign": intentUpdate, "reassign": intentUpdate, "transition": intentUpdate, "close": intentUpdate,
	"resolve": intentUpdate, "acknowledge": intentUpdate, "ack": intentUpdate, "approve": intentUpdate,
	"merge": intentUpdate, "reschedule": intentUpdate, "tag": intentUpdate, "label": intentUpdate,
	"star": intentUpdate, "accept": intentUpdate, "decline": intentUpdate, "complete": intentUpdate,
	"reopen": intentUpdate, "pin": intentUpdate, "react": intentCreate, "link": intentUpdate,
	"associate": intentUpdate, "reconcile": intentUpdate, "fulfill": intentUpdate, "turn": intentUpdate,
	"disable": intentUpdate, "enable": intentUpdate, "activate": intentUpdate, "reset": intentUpdate,
	"unlock": intentUpdate, "adjust": intentUpdate, "finish": intentUpdate, "ship": intentUpdate,
	"join": intentUpdate, "patch": intentUpdate, "promote": intentUpdate,
	"delete": intentRemove, "remove": intentRemove, "cancel": intentRemove, "archive": intentRemove,
	"trash": intentRemove, "void": intentRemove, "purge": intentRemove, "clear": intentRemove,
	"unsubscribe": intentRemove, "deactivate": intentRemove, "revoke": intentRemove, "end": intentRemove,
	"drop": intentRemove, "erase": intentRemove, "suspend": intentRemove, "kill": intentRemove,
	"destroy": intentRemove, "invalidate": intentRemove, "disconnect": intentRemove, "kick": intentRemove,
	"shoot": intentCreate, "ring": intentCreate, "answer": intentCreate, "respond": intentCreate,
	"fire": intentCreate, "blast": intentCreate, "dial": intentCreate, "remind": intentCreate,
}

// toolVerbs maps the first word of a tool id (after the connector) to its
// class; a verb not listed takes its class from the tool's effect.
var toolVerbs = map[string]int{
	"list": intentRead, "get": intentRead, "search": intentRead, "query": intentRead, "find": intentRead,
	"filter": intentRead, "describe": intentRead, "render": intentRead, "export": intentRead,
	"verify": intentRead, "run": intentRead,
	"create": intentCreate, "add": intentCreate, "send": intentCreate, "post": intentCreate,
	"upsert": intentCreate, "append": intentCreate, "insert": intentCreate, "schedule": intentCreate,
	"dispatch": intentCreate, "capture": intentCreate, "quick": intentCreate, "reply": intentCreate,
	"forward": intentCreate, "invite": intentCreate, "open": intentCreate, "copy": intentCreate,
	"upload": intentCreate, "put": intentCreate, "request": intentCreate, "email": intentCreate,
	"refund": intentCreate, "confirm": intentUpdate,
	"update": intentUpdate, "edit": intentUpdate, "change": intentUpdate, "move": intentUpdate,
	"modify": intentUpdate, "patch": intentUpdate, "set": intentUpdate, "assign": intentUpdate,
	"transition": intentUpdate, "close": intentUpdate, "resolve": intentUpdate,
	"acknowledge": intentUpdate, "approve": intentUpdate, "merge": intentUpdate, "tag": intentUpdate,
	"accept": intentUpdate, "decline": intentUpdate, "reopen": intentUpdate, "pin": intentUpdate,
	"link": intentUpdate, "attach": intentUpdate, "adjust": intentUpdate, "activate": intentUpdate,
	"unlock": intentUpdate, "reset": intentUpdate, "expire": intentUpdate, "retry": intentUpdate,
	"finalize": intentUpdate, "join": intentUpdate, "untrash": intentUpdate, "replace": intentUpdate,
	"batch":  intentUpdate,
	"delete": intentRemove, "remove": intentRemove, "cancel": intentRemove, "archive": intentRemove,
	"trash": intentRemove, "void": intentRemove, "purge": intentRemove, "clear": intentRemove,
	"deactivate": intentRemove, "revoke": intentRemove, "end": intentRemove,
}

// stepSeparators separate the steps of a request written as one sentence.
var stepSeparators = [][]string{{"and", "then"}, {"then"}, {"after", "that"}, {"afterwards"}, {"and", "also"}, {"and"}}

// phrasalVerbs are the phrasal and slang verbs people use for plain ones,
// longest first where they share a start.
var phrasalVerbs = []struct {
	words []string
	verb  string
}{
	{[]string{"get", "rid", "of"}, "delete"},
	{[]string{"throw", "away"}, "delete"},
	{[]string{"clean", "up"}, "delete"},
	{[]string{"set", "up"}, "create"},
	{[]string{"spin", "up"}, "create"},
	{[]string{"pull", "up"}, "get"},
	{[]string{"look", "up"}, "find"},
	{[]string{"find", "out"}, "find"},
	{[]string{"dig", "up"}, "find"},
	{[]string{"catch", "up", "on"}, "read"},
	{[]string{"take", "a", "look", "at"}, "get"},
	{[]string{"leave", "a", "note"}, "comment"},
	{[]string{"leave", "a", "comment"}, "comment"},
	{[]string{"drop", "a", "note"}, "comment"},
	{[]string{"drop", "a", "comment"}, "comment"},
	{[]string{"write", "back"}, "reply"},
	{[]string{"back", "up"}, "copy"},
	{[]string{"turn", "off"}, "disable"},
	{[]string{"switch", "off"}, "disable"},
	{[]string{"turn", "on"}, "enable"},
	{[]string{"switch", "on"}, "enable"},
	{[]string{"roll", "out"}, "update"},
	{[]string{"kick", "off"}, "start"},
	{[]string{"hand", "over"}, "assign"},
	{[]string{"sign", "up"}, "register"},
	{[]string{"tick", "off"}, "complete"},
	{[]string{"check", "off"}, "complete"},
	{[]string{"call", "off"}, "cancel"},
	{[]string{"remind", "me"}, "create reminder"},
	{[]string{"thumbs", "up"}, "react"},
	{[]string{"take", "down"}, "delete"},
	{[]string{"close", "out"}, "close"},
	{[]string{"catch", "me", "up", "on"}, "read"},
	{[]string{"catch", "me", "up"}, "read"},
	{[]string{"fire", "off"}, "send"},
	{[]string{"shoot", "off"}, "send"},
	{[]string{"nuke"}, "delete"},
	{[]string{"ditch"}, "delete"},
	{[]string{"scrap"}, "delete"},
	{[]string{"shut"}, "close"},
	{[]string{"bump"}, "update"},
	{[]string{"tweak"}, "update"},
}

// queryLanguages are aliases that are a connector's query language: a
// request that uses one asks to search.
var queryLanguages = setOf("jql", "soql", "sosl")

// notPlural are words ending in s that are not plurals.
var notPlural = setOf("status", "access", "address", "analytics", "news", "series", "always", "plus",
	"campus", "bonus", "canvas", "alias", "atlas", "thanks", "its", "this", "has", "was", "does", "is",
	"us", "yes", "his", "hers", "ours", "yours", "theirs", "whats", "lets", "progress", "business", "sales",
	"contents", "details", "settings")

// argumentMarkers start the part of a request that gives the tool its
// input ("... that the deploy is done", "... called Q3", "... for acme")
// rather than saying what to do.
var argumentMarkers = setOf("that", "saying", "says", "called", "named", "titled", "about", "for", "with",
	"from", "because", "so", "since", "regarding", "re", "containing", "like", "whose", "where", "telling")
