package connect

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Field is one input the page shows for a credential.
type Field struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Secret      bool   `json:"secret"`
	Placeholder string `json:"placeholder,omitempty"`
	Group       string `json:"group,omitempty"`
	// Default is the value used when the user leaves the field empty.
	Default string `json:"default,omitempty"`
	// Description says what the value is and where to find it.
	Description string `json:"description,omitempty"`
	// Pattern is the regular expression a connection field's value must
	// match in full (a Twilio Account SID: AC and 32 hex characters); the
	// server checks it again when the account is stored.
	Pattern string `json:"pattern,omitempty"`
	// Optional fields may stay empty (a Jira site that only chooses among
	// the sites an Atlassian sign-in grants).
	Optional bool `json:"optional,omitempty"`
	// Multiline fields take a block of text (a PEM key, a JSON key file);
	// Accept, when set, lets the user pick a file of these types instead
	// (".json", ".pem"), whose text fills the field in the browser.
	Multiline bool   `json:"multiline,omitempty"`
	Accept    string `json:"accept,omitempty"`
}

// OfferedConfig is an auth config the link offers.
type OfferedConfig struct {
	ID     string  `json:"id"`
	Key    string  `json:"key"`
	Type   string  `json:"type"`
	Name   string  `json:"name"`
	Fields []Field `json:"fields"`
}

// OfferedConnector is a connector the link offers.
type OfferedConnector struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Category groups the page's list of connectors (catalog categories).
	Category string `json:"category,omitempty"`
	// Logo is set for built-in connectors; the page draws a mark of the
	// name's initials for the others.
	Logo        string          `json:"logo,omitempty"`
	AuthConfigs []OfferedConfig `json:"authConfigs"`
}

// Branding is how the page presents the project.
type Branding struct {
	Name   string `json:"name"`
	Accent string `json:"accent"`
	Logo   string `json:"logo,omitempty"`
}

// View is GET /api/connect/:token.
type View struct {
	Status      string               `json:"status"`
	ExpiresAt   time.Time            `json:"expiresAt"`
	Branding    Branding             `json:"branding"`
	Connectors  []OfferedConnector   `json:"connectors"`
	Accounts    []account.PublicView `json:"accounts"`
	SelfManage  bool                 `json:"selfManage"`
	RedirectURL string               `json:"redirectUrl,omitempty"`
	// Reconnect is the account the link reconnects (a link made for one
	// account, or for a session's missing_scopes refusal); an OAuth sign-in
	// that names no account or name reconnects it.
	Reconnect *account.PublicView `json:"reconnect,omitempty"`
	// ConnectionID is the account a link made for one account reconnects.
	ConnectionID string `json:"connectionId,omitempty"`
}

// offered lists what a link offers: its connectors (or every connector the
// project can connect), each with the auth configs the link allows. OAuth
// methods need a configured client; the others get implicit configs.
func (p *Page) offered(ctx context.Context, t tenant.Tenant, l store.ConnectLink) ([]OfferedConnector, map[string]store.AuthConfig, error) {
	configs, err := p.Store.ListAuthConfigs(ctx, l.ProjectID, "")
	if err != nil {
		return nil, nil, err
	}
	cat := t.Catalog
	var connectors []*catalog.Connector
	if len(l.Connectors) > 0 {
		for _, id := range l.Connectors {
			if c, ok := cat.Connector(id); ok {
				connectors = append(connectors, c)
			}
		}
	} else if len(l.AuthConfigs) > 0 {
		seen := map[string]bool{}
		for _, ac := range configs {
			if slices.Contains(l.AuthConfigs, ac.Key) && !seen[ac.ConnectorID] {
				if c, ok := cat.Connector(ac.ConnectorID); ok {
					connectors = append(connectors, c)
					seen[c.ID] = true
				}
			}
		}
	} else {
		connectors = cat.Connectors()
	}
	byID := map[string]store.AuthConfig{}
	var out []OfferedConnector
	for _, c := range connectors {
		oc := OfferedConnector{ID: c.ID, Name: c.Name, Category: c.Category}
		if c.Builtin() { // a project's own connectors have no logo file
			oc.Logo = p.AssetsURL + "/logos/" + c.ID
		}
		for i := range c.AuthMethods {
			m := &c.AuthMethods[i]
			var cands []store.AuthConfig
			for _, ac := range configs {
				if ac.ConnectorID == c.ID && ac.AuthMethodID == m.ID {
					cands = append(cands, ac)
				}
			}
			if len(cands) == 0 && m.Type != catalog.AuthOAuth2 {
				if len(l.AuthConfigs) > 0 && !slices.Contains(l.AuthConfigs, c.ID+"_"+m.ID) {
					continue
				}
				ac, err := p.Store.EnsureImplicitAuthConfig(ctx, l.ProjectID, c.ID, c.ID+"_"+m.ID, m.ID, m.Type)
				if err != nil {
					return nil, nil, err
				}
				cands = append(cands, ac)
			}
			for _, ac := range cands {
				if len(l.AuthConfigs) > 0 && !slices.Contains(l.AuthConfigs, ac.Key) {
					continue
				}
				if m.Type == catalog.AuthOAuth2 && ac.ClientID == "" {
					continue // no client configured: not offerable
				}
				byID[ac.ID] = ac
				oc.AuthConfigs = append(oc.AuthConfigs, OfferedConfig{ID: ac.ID, Key: ac.Key, Type: m.Type, Name: methodName(m), Fields: fieldsOf(c, m)})
			}
		}
		if len(oc.AuthConfigs) > 0 {
			out = append(out, oc)
		}
	}
	if out == nil {
		out = []OfferedConnector{}
	}
	return out, byID, nil
}

// fieldsOf lists the inputs of a method's credential, then the connector's
// connection fields (except those an OAuth token supplies).
func fieldsOf(c *catalog.Connector, m *catalog.AuthMethod) []Field {
	var out []Field
	switch m.Type {
	case catalog.AuthAPIKey:
		out = append(out, Field{Name: "apiKey", Label: methodName(m), Secret: true})
	case catalog.AuthBasic:
		u, pw := "Username", "Password"
		if m.Basic != nil {
			u, pw = m.Basic.UsernameLabel, m.Basic.PasswordLabel
		}
		out = append(out, Field{Name: "username", Label: u}, Field{Name: "password", Label: pw, Secret: true})
	case catalog.AuthCustom:
		for _, f := range m.Fields {
			out = append(out, Field{Name: f.Name, Label: f.Label, Secret: f.Secret, Group: "fields"})
		}
	case catalog.AuthAWSIAM:
		out = append(out, Field{Name: "accessKeyId", Label: "Access key ID"}, Field{Name: "secretAccessKey", Label: "Secret access key", Secret: true})
	case catalog.AuthOAuth2ClientCredentials:
		out = append(out, Field{Name: "clientId", Label: "Client ID"}, Field{Name: "clientSecret", Label: "Client secret", Secret: true})
	case catalog.AuthServiceAccount:
		out = append(out,
			Field{Name: "serviceAccountKey", Label: "Service account JSON key", Secret: true, Multiline: true, Accept: ".json,application/json",
				Description: "The JSON key file of the service account, from Google Cloud console: IAM & Admin → Service accounts → Keys → Add key."},
			Field{Name: "subject", Label: "User to act as", Optional: true, Placeholder: "ann@example.com",
				Description: "A user of your Google Workspace domain; needs domain-wide delegation for the service account. Leave empty to act as the service account itself."})
	case catalog.AuthJWTBearer:
		out = append(out, Field{Name: "clientId", Label: "Consumer key"}, Field{Name: "username", Label: "Username"},
			Field{Name: "privateKey", Label: "Private key (PEM)", Secret: true, Multiline: true, Accept: ".pem,.key",
				Description: "The private key of the certificate uploaded to the connected app."})
	case catalog.AuthGitHubApp:
		out = append(out, Field{Name: "appId", Label: "App ID"}, Field{Name: "installationId", Label: "Installation ID"},
			Field{Name: "privateKey", Label: "Private key (PEM)", Secret: true, Multiline: true, Accept: ".pem",
				Description: "A private key generated on the app's settings page."})
	}
	for _, f := range c.ConnectionFields {
		if !f.UsedBy(m.ID) || (m.Type == catalog.AuthOAuth2 && !typedBeforeSignIn(m, &f)) {
			continue
		}
		out = append(out, Field{Name: f.Name, Label: f.Label, Placeholder: f.Example, Default: f.Default, Description: f.Description,
			Pattern: f.Pattern, Optional: m.Chooses(f.Name)})
	}
	if out == nil {
		out = []Field{}
	}
	return out
}

// Get answers GET /api/connect/:token: the link's state, branding, offers
// and the user's accounts (never a credential).
func (p *Page) Get(ctx context.Context, token string) (View, error) {
	l, state, err := p.link(ctx, token)
	if err != nil {
		return View{}, err
	}
	t, err := p.tenant(ctx, l)
	if err != nil {
		return View{}, err
	}
	settings, err := p.Store.GetConnectSettings(ctx, l.ProjectID)
	if err != nil {
		return View{}, err
	}
	proj, err := p.Store.GetProject(ctx, l.ProjectID)
	if err != nil {
		return View{}, err
	}
	v := View{Status: state, ExpiresAt: l.ExpiresAt, SelfManage: settings.SelfManage, RedirectURL: l.RedirectURL, ConnectionID: l.ConnectionID,
		Branding: Branding{Name: displayName(proj.Name), Accent: "#4f46e5"}, Connectors: []OfferedConnector{}, Accounts: []account.PublicView{}}
	if settings.Name != "" {
		v.Branding.Name = settings.Name
	}
	if settings.Accent != "" {
		v.Branding.Accent = settings.Accent
	}
	if settings.LogoKey != "" {
		v.Branding.Logo = p.AssetsURL + "/" + settings.LogoKey
	}
	if state != StateActive {
		return v, nil
	}
	if v.Connectors, _, err = p.offered(ctx, t, l); err != nil {
		return View{}, err
	}
	if v.Accounts, err = p.accounts(ctx, l); err != nil {
		return View{}, err
	}
	for i := range v.Accounts {
		if l.ConnectionID != "" && v.Accounts[i].ID == l.ConnectionID {
			v.Reconnect = &v.Accounts[i]
		}
	}
	return v, nil
}

// bootstrapProjectName is the name serve gives the project it creates on a
// first run: a handle, not a name to show an end user.
const bootstrapProjectName = "default"

// displayName is the project name the page shows when the project set no
// Connect name: none for the bootstrap project ("Connect your accounts",
// not "… to default").
func displayName(projectName string) string {
	if projectName == bootstrapProjectName {
		return ""
	}
	return projectName
}

// methodName is the name the page shows for an auth method. An imported
// API's methods are named by their security scheme ("apiKeyAuth",
// "basic_auth"), which means nothing to an end user: such names give way
// to a name for the method's type.
func methodName(m *catalog.AuthMethod) string {
	if readable(m.Name) {
		return m.Name
	}
	switch m.Type {
	case catalog.AuthAPIKey:
		return "API key"
	case catalog.AuthBasic:
		return "Username and password"
	case catalog.AuthOAuth2:
		return "Sign in"
	case catalog.AuthOAuth2ClientCredentials:
		return "Client ID and secret"
	case catalog.AuthAWSIAM:
		return "AWS access key"
	}
	return "Credentials"
}

// readable reports whether a name reads as words: it has a space, or is
// one capitalised word ("Token"), not an identifier ("apiKeyAuth",
// "api_key").
func readable(name string) bool {
	if name == "" || strings.ContainsAny(name, "_") {
		return false
	}
	if strings.Contains(name, " ") {
		return true
	}
	r := []rune(name)
	if !unicode.IsUpper(r[0]) {
		return false
	}
	for _, c := range r[1:] {
		if unicode.IsUpper(c) {
			return name == strings.ToUpper(name) // an acronym ("PAT") reads
		}
	}
	return true
}
