package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/operator"
	"github.com/switchboard-gw/switchboard/internal/store"
)

func operatorVerb(verb string) func(*Program, context.Context, []string) error {
	return func(p *Program, ctx context.Context, args []string) error { return p.adminOperator(ctx, verb, args) }
}

// dashboardLinkURL is where a sign-in link token is used.
func dashboardLinkURL(webURL, token string) string {
	return strings.TrimRight(webURL, "/") + "/dashboard/signin/link/" + token
}

// readPassword reads the password from the first line of r.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// adminOperator runs `admin operator create|link|list|remove|role`.
func (p *Program) adminOperator(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("operator " + verb)
	projectID := a.fs.String("project", "", "id of a project the operator belongs to")
	role := a.fs.String("role", store.RoleOwner, "owner or member (with --project)")
	link := a.fs.Bool("link", false, "print a one-time sign-in link instead of reading a password from stdin")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	want := 1
	synopsis := "admin operator " + verb + " EMAIL"
	switch verb {
	case "list":
		want, synopsis = 0, "admin operator list [--json]"
	case "create":
		synopsis = "admin operator create EMAIL [--project ID --role owner|member] [--link] (password on stdin)"
	case "role":
		synopsis = "admin operator role EMAIL --project ID --role owner|member|none"
	}
	if err := expectArgs(pos, want, synopsis); err != nil {
		return err
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	ops := operator.NewService(operator.Options{Store: st})
	if verb == "list" {
		list, err := st.ListOperators(ctx)
		if err != nil {
			return err
		}
		type row struct {
			store.Operator
			Projects []store.OperatorProject `json:"projects"`
		}
		rows := make([]row, len(list))
		for i, o := range list {
			rows[i].Operator = o
			if rows[i].Projects, err = st.OperatorProjects(ctx, o.ID); err != nil {
				return err
			}
		}
		return printList(p.Stdout, *a.asJSON, rows, "ID\tEMAIL\tPROJECTS\tCREATED", func(r row) []any {
			var ps []string
			for _, pr := range r.Projects {
				ps = append(ps, pr.ProjectID+":"+pr.Role)
			}
			return []any{r.ID, r.Email, ps, r.CreatedAt.Format(time.RFC3339)}
		})
	}
	email, err := operator.NormalizeEmail(pos[0])
	if err != nil {
		return usagef("%s", err.Error())
	}
	if verb == "create" {
		if *projectID != "" {
			if err := operator.CheckRole(*role); err != nil {
				return usagef("--role is owner or member")
			}
			if err := requireProject(ctx, st, *projectID); err != nil {
				return err
			}
		}
		password := ""
		if !*link {
			if password, err = readPassword(p.Stdin); err != nil {
				return err
			}
			if password == "" {
				return usagef("give the password on standard input (echo … | switchboard admin operator create %s), or use --link for a one-time sign-in link", email)
			}
		}
		o, err := ops.Create(ctx, email, password)
		if err != nil {
			return err
		}
		if *projectID != "" {
			if err := st.SetOperatorRole(ctx, o.ID, *projectID, *role); err != nil {
				return err
			}
		}
		fmt.Fprintf(p.Stdout, "created operator %s (%s)\n", o.Email, o.ID)
		if *link {
			return p.printSigninLink(ctx, ops, o.ID, a.cfg.WebURL)
		}
		fmt.Fprintf(p.Stdout, "sign in at %s/dashboard\n", a.cfg.WebURL)
		return nil
	}
	o, err := st.OperatorByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no operator %s; 'switchboard admin operator list' shows them", email)
	} else if err != nil {
		return err
	}
	switch verb {
	case "link":
		return p.printSigninLink(ctx, ops, o.ID, a.cfg.WebURL)
	case "remove":
		if err := st.DeleteOperator(ctx, o.ID); err != nil {
			return err
		}
		fmt.Fprintf(p.Stdout, "removed operator %s; their dashboard sessions ended\n", o.Email)
		return nil
	case "role":
		if *projectID == "" {
			return usagef("--project is required")
		}
		if *role == "none" {
			if err := st.RemoveOperatorRole(ctx, o.ID, *projectID); errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("%s is not in project %s", o.Email, *projectID)
			} else if err != nil {
				return err
			}
			fmt.Fprintf(p.Stdout, "%s is no longer in project %s\n", o.Email, *projectID)
			return nil
		}
		if err := operator.CheckRole(*role); err != nil {
			return usagef("--role is owner, member or none")
		}
		if err := st.SetOperatorRole(ctx, o.ID, *projectID, *role); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("project %s not found; 'switchboard admin project list' shows the ids", *projectID)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(p.Stdout, "%s is %s of project %s\n", o.Email, *role, *projectID)
		return nil
	}
	return usagef("unknown operator command %q", verb)
}

func (p *Program) printSigninLink(ctx context.Context, ops *operator.Service, operatorID, webURL string) error {
	token, err := ops.CreateLink(ctx, operatorID)
	if err != nil {
		return err
	}
	fmt.Fprintf(p.Stdout, "one-time sign-in link (valid %s; it sets the password):\n\n    %s\n\nThis link will not be shown again.\n",
		ops.LinkTTL, dashboardLinkURL(webURL, token))
	return nil
}
