package httpapi

import (
	"net/http"
	"time"
)

// withBodyDeadline gives a request that has a body a read deadline of
// s.bodyReadTimeout, so a client that trickles its body in (a slowloris on
// the unauthenticated /api routes) holds a connection for that long at
// most; the handler then sees a read error and answers 400.
//
// The deadline ends with the body: once a handler has read the body to its
// end, net/http clears the connection's read deadline itself (it does so
// when it starts watching for the client to go away), so a long MCP call
// or provider request after that is not cut; TestServer_BodyDeadlineLifted
// AfterBody guards this. That is why this is a per-request deadline and
// not http.Server.ReadTimeout, whose deadline covers the whole request and
// would cancel long requests' contexts. After a failed read the deadline
// stays, so the server does not wait for the trickle when it discards the
// rest of the body.
func (s *Server) withBodyDeadline(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return
	}
	// A writer without deadlines (a test recorder) answers an error: no deadline then.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.bodyReadTimeout))
}
