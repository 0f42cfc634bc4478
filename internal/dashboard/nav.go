package dashboard

// NavItem is one project screen in the navigation: its name (View.Screen),
// the path under /dashboard/p/<project>/ and the link text.
type NavItem struct{ Screen, Path, Label string }

// nav lists the project screens in navigation order, one line per screen.
var nav = []NavItem{
	{"keys", "keys", "API keys"},
	{"endpoints", "endpoints", "MCP endpoints"},
	{"catalog", "catalog", "Catalog"},
	{"authconfigs", "authconfigs", "OAuth clients"},
	{"operators", "operators", "Operators"},
	{"logs", "logs", "Execution log"},
	{"approvals", "approvals", "Approvals"},
	{"webhooks", "webhooks", "Webhooks"},
	{"users", "users", "End users"},
	{"connect", "connect", "Connect"},
	{"triggers", "triggers", "Triggers"},
	{"sessions", "sessions", "Sessions"},
	{"connectors", "connectors", "Own connectors"},
}

// Nav returns the project screens for the layout's navigation.
func (View) Nav() []NavItem { return nav }
