package secrets_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/metis-llm/metis/internal/secrets"
	"github.com/metis-llm/metis/internal/secrets/secretstest"
)

// scrubTwice scrubs body as a recording is scrubbed: one pass to
// remember, one to scrub.
func scrubTwice(body []byte, contentType string) []byte {
	s := secrets.NewScrubber()
	s.Body(body, contentType)
	return s.Body(body, contentType)
}

func TestScrubberBody(t *testing.T) {
	for _, c := range []struct{ name, ct, in, want string }{
		{"json member", "application/json", `{"api_key":"abc12345","model":"m"}`, `{"api_key":"REDACTED","model":"m"}`},
		{"json array", "application/json", `{"api_key":["abc12345", "x"],"n":[1]}`, `{"api_key":["REDACTED", "REDACTED"],"n":[1]}`},
		{"json object", "application/json", `{"authorization":{"type":"bearer","token":"abc12345"},"n":{"x":"y"}}`, `{"authorization":{"type":"REDACTED","token":"REDACTED"},"n":{"x":"y"}}`},
		{"json in json", "", `{"arguments":"{\"password\":\"hunter2\",\"user\":\"bob\"}"}`, `{"arguments":"{\"password\":\"REDACTED\",\"user\":\"bob\"}"}`},
		{"url in json", "application/json", `{"u":"https://a.example.com/f?sv=1&sig=abc%2Bdef12&x=1"}`, `{"u":"https://a.example.com/f?sv=1&sig=REDACTED&x=1"}`},
		{"userinfo in json", "", `{"u":"https://me:pa55word@git.example.com/r"}`, `{"u":"https://REDACTED:REDACTED@git.example.com/r"}`},
		{"form", "application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=1%2F%2Fabc&client_id=x", "grant_type=refresh_token&refresh_token=REDACTED&client_id=x"},
		{"form sniffed", "", "code=abc123xyz&state=s", "code=REDACTED&state=s"},
		{"multipart", "multipart/form-data; boundary=XX", "--XX\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2hunter2\r\n--XX\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n1\r\n--XX--\r\n",
			"--XX\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nREDACTED\r\n--XX\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n1\r\n--XX--\r\n"},
		{"echo", "", `{"password":"hunter2hunter2"} said hunter2hunter2`, `{"password":"REDACTED"} said REDACTED`},
		{"shape after escape", "application/json", `{"t":"a\nsk-proj-` + strings.Repeat("Ab3dEf6hIj", 3) + `"}`, `{"t":"a\nREDACTED"}`},
		{"unchanged", "application/json", `{"token":"Hello","max_tokens":5,"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}`, `{"token":"Hello","max_tokens":5,"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}`},
	} {
		if got := string(scrubTwice([]byte(c.in), c.ct)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestScrubberEventStream(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab3dEf6hIj", 3)
	in := secretstest.EventStream(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"text":"`+key+`"}`))+`"}`, `{"n":1}`)
	out := scrubTwice(in, "application/vnd.amazon.eventstream")
	want := secretstest.EventStream(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"text":"REDACTED"}`))+`"}`, `{"n":1}`)
	if string(out) != string(want) {
		t.Errorf("event stream:\n got %q\nwant %q", out, want)
	}
}

func TestScrubberGzip(t *testing.T) {
	gz := func(s string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write([]byte(s))
		_ = zw.Close()
		return buf.Bytes()
	}
	out := scrubTwice(gz(`{"access_token":"q8Xv2LmZ7rT4kW9pN3bF6hJ1"}`), "application/json")
	zr, err := gzip.NewReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || string(plain) != `{"access_token":"REDACTED"}` {
		t.Errorf("gzip body scrubbed to %q (%v)", plain, err)
	}
	clean := gz(`{"n":1}`)
	if out := scrubTwice(clean, ""); !bytes.Equal(out, clean) {
		t.Errorf("a clean gzip body changed")
	}
}

func TestScrubberHeaderAndURL(t *testing.T) {
	s := secrets.NewScrubber()
	s.Header("Authorization", []string{"Basic " + base64.StdEncoding.EncodeToString([]byte("alice:opensesame99"))})
	s.Header("X-Api-Key", []string{"azure-key-0123456789"})
	s.Header("User-Agent", []string{"sdk/1.0.0-agent"})
	got := string(s.Body([]byte(`{"m":"opensesame99 / azure-key-0123456789 / sdk/1.0.0-agent"}`), "application/json"))
	if want := `{"m":"REDACTED / REDACTED / sdk/1.0.0-agent"}`; got != want {
		t.Errorf("Body = %s, want %s", got, want)
	}
	if got, want := s.URL("https://api.example.com/v1/keys/AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY/x?key=abc12345678&alt=sse"),
		"https://api.example.com/v1/keys/REDACTED/x?key=REDACTED&alt=sse"; got != want {
		t.Errorf("URL = %s, want %s", got, want)
	}
}

// FuzzScrubber: any body, any type: no panic, valid JSON stays valid
// JSON; and a key planted after any text in any container is gone, in
// every form, after the two passes.
func FuzzScrubber(f *testing.F) {
	f.Add(`{"a":"b"}`, uint8(0), "x\\n", "", uint8(0), uint8(0))
	f.Add("a=b&c=d", uint8(1), "%22", "z", uint8(3), uint8(2))
	f.Add("--XX\r\n\r\n--XX--", uint8(2), "", "", uint8(10), uint8(4))
	f.Add("data: {\"x\":\"\\u0022\"}\n\n", uint8(3), "\"", "\\", uint8(12), uint8(6))
	keys := secretstest.Keys()
	types := []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=XX", "text/event-stream", "application/vnd.amazon.eventstream", ""}
	f.Fuzz(func(t *testing.T, body string, ct uint8, prefix, suffix string, which, container uint8) {
		contentType := types[int(ct)%len(types)]
		out := scrubTwice([]byte(body), contentType)
		if json.Valid([]byte(body)) && !json.Valid(out) {
			t.Fatalf("broke valid JSON:\n in %q\nout %q", body, out)
		}
		k := keys[int(which)%len(keys)]
		plain := prefix + k.Value + " " + suffix
		q := jsonQuote(plain)
		var planted []byte
		ct2 := "application/json"
		switch container % 8 {
		case 0:
			planted = []byte(`{"api_key":` + q + `}`)
		case 1:
			planted = []byte(`{"args":` + jsonQuote(`{"client_secret":`+q+`}`) + `}`)
		case 2:
			planted, ct2 = []byte("a=1&password="+url.QueryEscape(plain)), "application/x-www-form-urlencoded"
		case 3:
			planted = []byte(`{"u":` + jsonQuote("https://h.example.com/p?sig="+url.QueryEscape(plain)+"&x=1") + `}`)
		case 4:
			planted, ct2 = []byte("--XX\r\nContent-Disposition: form-data; name=\"api_key\"\r\n\r\n"+plain+"\r\n--XX--\r\n"), "multipart/form-data; boundary=XX"
		case 5:
			if !k.Bare {
				return
			}
			planted = []byte(`{"text":` + q + `}`)
		case 6:
			if !k.Bare {
				return
			}
			planted, ct2 = []byte("data: {\"delta\":"+q+"}\n\n"), "text/event-stream"
		case 7:
			if !k.Bare {
				return
			}
			planted, ct2 = secretstest.EventStream(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"t":`+q+`}`))+`"}`), "application/vnd.amazon.eventstream"
		}
		out = scrubTwice(planted, ct2)
		if fs := secrets.Scan(out, k.Value); len(fs) > 0 {
			t.Fatalf("%s survived in container %d:\n in %q\nout %q\n%v", k.Shape, container%8, planted, out, fs)
		}
	})
}
