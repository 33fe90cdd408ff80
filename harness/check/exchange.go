package check

import (
	"net/http"
	"net/url"
)

// Exchange is what the request and fragment checks see of one HTTP
// exchange of a step: the request as the adapter sent it and the
// response body as the server answered it.
type Exchange struct {
	Method string
	// Path is the request's path, without the query.
	Path string
	// URL is the request's URL as sent; Proxied says it came through the
	// replay server over loopback HTTP (replay.Proxied), so that its
	// scheme and host are the server's, not the adapter's.
	URL     *url.URL
	Proxied bool
	Header  http.Header
	Body    []byte
	// Response is the response body as received.
	Response []byte
}
