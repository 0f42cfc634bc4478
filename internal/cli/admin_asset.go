package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/switchboard-gw/switchboard/internal/connect"
)

// adminAssetUpload stores a file as projects/<project>/<sha256>.<ext>.
func (p *Program) adminAssetUpload(ctx context.Context, args []string) error {
	a := p.adminFlags("asset upload")
	projectID := a.fs.String("project", "", "project id (required)")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || len(pos) != 1 {
		return usagef("usage: switchboard admin asset upload --project ID FILE")
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return err
	}
	asset, err := connect.NewAsset(*projectID, pos[0], data)
	if err != nil {
		return usagef("%s", err.Error())
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	key, ct := asset.Key, asset.ContentType
	if err := st.PutAsset(ctx, asset); err != nil {
		return err
	}
	url := a.cfg.AssetsURL + "/" + key
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]string{"key": key, "url": url, "contentType": ct})
	}
	fmt.Fprintf(p.Stdout, "stored %s\n%s\n", key, url)
	return nil
}
