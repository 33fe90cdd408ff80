package record

import (
	"net/url"
	"strings"
	"testing"
)

func TestEndpointHidesCredentials(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab3dEf6hIj", 3)
	u, err := url.Parse("https://user:pw@gateway.example.com/v1/" + key + "/openai?api-key=x")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := endpoint(u), "https://gateway.example.com/v1/REDACTED/openai"; got != want {
		t.Errorf("endpoint = %s, want %s", got, want)
	}
}
