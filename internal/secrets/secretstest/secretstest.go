// Package secretstest plants made-up credentials of every shape in every
// position and container of an HTTP exchange, for the tests that a
// recording or an import writes none of them. The keys are built at run
// time, so that no file holds one.
package secretstest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/url"
	"strings"
)

// A Key is a made-up credential of one shape.
type Key struct {
	// Shape names it.
	Shape string
	Value string
	// Bare keys are recognisable by their shape alone, so they are also
	// planted where no name says they are credentials: free text, a path
	// segment, after escape sequences. The others (an AWS secret key, an
	// Azure key, a SAS signature, an opaque token) look like any random id
	// and are planted only in credential positions.
	Bare bool
}

// Keys returns one key of each shape.
func Keys() []Key {
	r := strings.Repeat
	return []Key{
		{"openai-project", "sk-" + "proj-" + r("Ab3dEf6hIj", 4), true},
		{"anthropic", "sk-" + "ant-api03-" + r("Zq9x8W7v6U", 4) + "-AA", true},
		{"aws-access-key-id", "AK" + "IA" + r("Q7XZ", 4), true},
		{"google-api-key", "AI" + "za" + "Sy" + r("D9tSrke72P", 3) + "ouQ", true},
		{"google-oauth-token", "ya" + "29." + r("a0B1c2D3e4", 3), true},
		{"github-token", "gh" + "p_" + r("16C7e42F29", 4), true},
		{"jwt", "ey" + "JhbGciOiJIUzI1NiJ9" + ".ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N", true},
		{"google-client-secret", "GOC" + "SPX-" + r("q8Xv2LmZ7r", 3), true},
		{"google-refresh-token", "1/" + "/0" + r("gT7kQ2xW9z", 4), true},
		{"slack-token", "xo" + "xb-" + "1234567890-" + "abcdefghijKLM", true},
		{"aws-secret-access-key", "wJalrXUtnFEMI/K7MDENG" + "/bPxRfiCYEXAMPLEKEY", false},
		{"azure-key", "8c1f4e2a9b7d3f60" + "51e8a2c4d9b7f3e1", false},
		{"sas-signature", "k7Fq2Lx9Rv4Nc7Tb" + "1Zy6Hk3Jd5Fg0SaB+wXy/pQ=", false},
		{"opaque-token", "q8Xv2LmZ7rT4" + "kW9pN3bF6hJ1", false},
	}
}

// An Exchange is one request and its response.
type Exchange struct {
	// Name says where the key is: position/container.
	Name       string
	Method     string
	URL        string
	ReqHeader  http.Header
	ReqBody    []byte
	Status     int
	RespHeader http.Header
	RespBody   []byte
}

const base = "https://api.example.com/v1/chat"

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// Exchanges returns the exchanges that carry k, one per position and
// container: request and response headers (their values echoed by the
// response), query parameters and user information, JSON members (nested
// in a JSON string, in arrays, URLs inside JSON strings, base64 JSON),
// form fields, multipart parts, server-sent events, NDJSON, AWS event
// streams, gzip-compressed JSON; and for a bare key, free text, a path
// segment, and text right after each escape sequence (\n, \r\n, \t,
// \u0022, \/, %22, %0A, %20).
func Exchanges(k Key) []Exchange {
	v := k.Value
	js := jsonString(v)
	json1 := "application/json"
	echo := []byte(`{"error":{"message":"Incorrect API key provided: ` + strings.Trim(js, `"`) + `"}}`)
	post := func(name, u string, reqH http.Header, reqBody string, respH http.Header, respBody []byte) Exchange {
		if reqH == nil {
			reqH = header("Content-Type", json1)
		}
		if respH == nil {
			respH = header("Content-Type", json1)
		}
		return Exchange{Name: name, Method: http.MethodPost, URL: u, ReqHeader: reqH, ReqBody: []byte(reqBody), Status: 200, RespHeader: respH, RespBody: respBody}
	}
	ok := []byte(`{"ok":true}`)
	form := "application/x-www-form-urlencoded"
	var out []Exchange
	for _, h := range []struct{ name, value string }{
		{"Authorization", "Bearer " + v}, {"X-Api-Key", v}, {"Api-Key", v}, {"X-Goog-Api-Key", v},
		{"Cookie", "session=" + v}, {"Proxy-Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+v))},
		{"X-Amz-Security-Token", v},
	} {
		out = append(out, post("request-header/"+h.name+"/echoed-in-json", base, header("Content-Type", json1, h.name, h.value), `{"model":"m"}`, nil, echo))
	}
	out = append(out,
		post("response-header/Set-Cookie/echoed-in-json", base, nil, `{"model":"m"}`, header("Content-Type", json1, "Set-Cookie", "session="+v+"; Path=/"), echo),
		post("request-header/echoed-in-sse", base, header("Content-Type", json1, "X-Api-Key", v), `{"stream":true}`,
			header("Content-Type", "text/event-stream"), []byte("data: {\"text\":\"your key is "+strings.Trim(js, `"`)+"\"}\n\ndata: [DONE]\n\n")),
	)
	for _, p := range []string{"key", "api_key", "access_token", "sig", "code", "X-Amz-Signature"} {
		out = append(out, post("query/"+p+"/echoed-in-json", base+"?alt=sse&"+p+"="+url.QueryEscape(v), nil, `{}`, nil, echo))
	}
	out = append(out, post("url-userinfo/echoed-in-json", "https://user:"+url.QueryEscape(v)+"@api.example.com/v1/chat", nil, `{}`, nil, echo))
	for _, f := range []string{"api_key", "client_secret", "refresh_token", "password", "access_token", "x-api-key"} {
		out = append(out, post("json-member/"+f+"/echoed-in-json", base, nil, `{"model":"m",`+jsonString(f)+`:`+js+`}`, nil, echo))
		out = append(out, post("json-member/"+f+"/response", base, nil, `{}`, nil, []byte(`{"token_type":"bearer",`+jsonString(f)+`: `+js+`}`)))
	}
	out = append(out,
		post("json-in-json-string", base, nil, `{"arguments":`+jsonString(`{"password":`+js+`,"user":"bob"}`)+`}`, nil, ok),
		post("json-in-json-in-json-string", base, nil, `{"a":`+jsonString(`{"b":`+jsonString(`{"client_secret":`+js+`}`)+`}`)+`}`, nil, ok),
		post("json-array", base, nil, `{"api_key":[`+js+`,"x"]}`, nil, ok),
		post("json-object", base, nil, `{"authorization":{"type":"bearer","token":`+js+`}}`, nil, ok),
		post("json-url-query/sas", base, nil, `{"url":`+jsonString("https://acct.blob.core.windows.net/c/f.png?sv=2024-05-04&sr=b&sp=r&sig="+url.QueryEscape(v))+`}`, nil, ok),
		post("json-url-query/key", base, nil, `{"image_url":{"url":`+jsonString("https://maps.example.com/img?size=2&key="+url.QueryEscape(v))+`}}`, nil, ok),
		post("json-url-query/response", base, nil, `{}`, nil, []byte(`{"download":`+jsonString("https://s3.example.com/o?X-Amz-Signature="+url.QueryEscape(v)+"&X-Amz-Expires=60")+`}`)),
		post("json-url-userinfo", base, nil, `{"repo":`+jsonString("https://x-access:"+url.QueryEscape(v)+"@git.example.com/r.git")+`}`, nil, ok),
		post("json-url-fragment", base, nil, `{}`, nil, []byte(`{"redirect":`+jsonString("https://app.example.com/cb#state=1&access_token="+url.QueryEscape(v))+`}`)),
		post("json-base64-json", base, nil, `{}`, nil, []byte(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"api_key":`+js+`}`))+`"}`)),
	)
	for _, f := range []string{"client_secret", "refresh_token", "password", "assertion", "client_assertion", "code", "api_key"} {
		out = append(out, post("form/"+f+"/echoed-in-json", "https://oauth.example.com/token", header("Content-Type", form),
			"grant_type=refresh_token&client_id=abc&"+f+"="+url.QueryEscape(v), nil, echo))
	}
	out = append(out, post("form-sniffed/client_secret", "https://oauth.example.com/token", header(), "grant_type=x&client_secret="+url.QueryEscape(v), nil, ok))
	out = append(out, post("form/json-value", "https://oauth.example.com/token", header("Content-Type", form),
		"grant_type=x&payload="+url.QueryEscape(`{"api_key":`+js+`}`), nil, ok))
	for _, p := range []struct{ name, ct, content string }{
		{"api_key", "", v}, {"password", "", v}, {"client_secret", "text/plain", v},
		{"file", "application/json", `{"access_token":` + js + `}`},
		{"callback", "", "https://hooks.example.com/x?token=" + url.QueryEscape(v)},
	} {
		const b = "----metisBoundary7MA4YWxkTrZu0gW"
		part := "--" + b + "\r\nContent-Disposition: form-data; name=\"" + p.name + "\"\r\n"
		if p.ct != "" {
			part += "Content-Type: " + p.ct + "\r\n"
		}
		body := "--" + b + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n" + part + "\r\n" + p.content + "\r\n--" + b + "--\r\n"
		out = append(out, post("multipart/"+p.name+"/echoed-in-json", base, header("Content-Type", "multipart/form-data; boundary="+b), body, nil, echo))
	}
	out = append(out,
		post("sse/member", base, nil, `{"stream":true}`, header("Content-Type", "text/event-stream"),
			[]byte("event: token\ndata: {\"access_token\":"+js+",\"n\":1}\n\ndata: [DONE]\n\n")),
		post("sse/tool-arguments", base, nil, `{"stream":true}`, header("Content-Type", "text/event-stream"),
			[]byte("data: {\"delta\":{\"arguments\":"+jsonString(`{"api_key":`+js+`}`)+"}}\n\n")),
		post("ndjson/member", base, nil, `{}`, header("Content-Type", "application/x-ndjson"),
			[]byte(`{"refresh_token":`+js+"}\n"+`{"done":true}`+"\n")),
		post("eventstream/base64-payload", base, nil, `{}`, header("Content-Type", "application/vnd.amazon.eventstream"),
			EventStream(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"type":"x","api_key":`+js+`}`))+`","p":"ab"}`, `{"api_key":`+js+`}`)),
	)
	out = append(out, post("gzip/member", base, nil, `{}`, header("Content-Type", json1, "Content-Encoding", "gzip"),
		gzipped(`{"access_token":`+js+`}`)))
	if !k.Bare {
		return out
	}
	esc := strings.Trim(js, `"`)
	out = append(out,
		post("path-segment", "https://api.example.com/v1/keys/"+url.PathEscape(v)+"/models", nil, `{}`, nil, ok),
		post("free-text/json", base, nil, `{"messages":[{"role":"user","content":"my key is `+esc+` ok"}]}`, nil, ok),
		post("free-text/plain-response", base, nil, `{}`, header("Content-Type", "text/plain"), []byte("denied: "+v+"\n")),
		post("free-text/eventstream", base, nil, `{}`, header("Content-Type", "application/vnd.amazon.eventstream"),
			EventStream(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"type":"text","text":"`+esc+`"}`))+`"}`)),
		post("free-text/url-path-in-json", base, nil, `{"u":`+jsonString("https://api.example.com/k/"+v+"/x")+`}`, nil, ok),
	)
	for _, e := range []struct{ name, text string }{
		{"escape-n", `\n`}, {"escape-rn", `\r\n`}, {"escape-t", `\t`}, {"escape-u0022", `\u0022`}, {"escape-slash", `\/`},
	} {
		out = append(out, post("after-escape/"+e.name, base, nil, `{"content":"line`+e.text+esc+`"}`, nil, ok))
		out = append(out, post("after-escape/"+e.name+"/sse", base, nil, `{}`, header("Content-Type", "text/event-stream"),
			[]byte(`data: {"delta":{"text":"x`+e.text+esc+`"}}`+"\n\n")))
	}
	for _, e := range []string{"%22", "%0A", "%20"} {
		out = append(out, post("after-escape/percent"+e+"/json-url", base, nil, `{"u":`+jsonString("https://x.example.com/s?q="+e+url.QueryEscape(v))+`}`, nil, ok))
		out = append(out, post("after-escape/percent"+e+"/form", "https://oauth.example.com/token", header("Content-Type", form), "text="+e+url.QueryEscape(v), nil, ok))
	}
	return out
}

// gzipped compresses s.
func gzipped(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(s)) // writing to memory does not fail
	_ = zw.Close()
	return buf.Bytes()
}

// EventStream encodes payloads as AWS event-stream frames.
func EventStream(payloads ...string) []byte {
	var out []byte
	for _, p := range payloads {
		var head []byte
		for _, h := range [][2]string{{":event-type", "chunk"}, {":content-type", "application/json"}, {":message-type", "event"}} {
			head = append(head, byte(len(h[0])))
			head = append(head, h[0]...)
			head = append(head, 7)
			head = binary.BigEndian.AppendUint16(head, uint16(len(h[1])))
			head = append(head, h[1]...)
		}
		total := 16 + len(head) + len(p)
		f := binary.BigEndian.AppendUint32(nil, uint32(total))
		f = binary.BigEndian.AppendUint32(f, uint32(len(head)))
		f = binary.BigEndian.AppendUint32(f, crc32.ChecksumIEEE(f))
		f = append(append(f, head...), p...)
		f = binary.BigEndian.AppendUint32(f, crc32.ChecksumIEEE(f))
		out = append(out, f...)
	}
	return out
}
