package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// uploadTypes are the content types an upload may be served as; anything
// else is refused rather than served as something a browser might run.
var uploadTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".ico": "image/x-icon",
}

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
	ext := strings.ToLower(filepath.Ext(pos[0]))
	ct, ok := uploadTypes[ext]
	if !ok {
		return usagef("%s: uploads are images (png, jpg, gif, webp, svg, ico)", pos[0])
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return err
	}
	if len(data) > 2<<20 {
		return usagef("%s is larger than 2 MiB", pos[0])
	}
	if ext != ".svg" && ext != ".ico" && !strings.HasPrefix(http.DetectContentType(data), "image/") {
		return usagef("%s is not an image", pos[0])
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	sum := sha256.Sum256(data)
	key := "projects/" + *projectID + "/" + hex.EncodeToString(sum[:]) + ext
	if err := st.PutAsset(ctx, store.Asset{Key: key, ProjectID: *projectID, ContentType: ct, Data: data}); err != nil {
		return err
	}
	url := a.cfg.AssetsURL + "/" + key
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]string{"key": key, "url": url, "contentType": ct})
	}
	fmt.Fprintf(p.Stdout, "stored %s\n%s\n", key, url)
	return nil
}
