package serve

import (
	"encoding/json"
	"strings"
)

// openAPI returns the OpenAPI 3.0 description of the questions qs and the
// server's other paths.
func openAPI(qs []Question) ([]byte, error) {
	type obj = map[string]any
	errResp := func(desc string) obj {
		return obj{"description": desc, "content": obj{"application/json": obj{"schema": obj{"$ref": "#/components/schemas/Error"}}}}
	}
	paths := obj{}
	for _, q := range qs {
		var params []obj
		for _, p := range q.Params {
			schema := obj{"type": p.Type}
			if p.Default != "" {
				schema["default"] = defaultValue(p)
			}
			if p.Name == "format" {
				schema["enum"] = q.Formats
				schema["default"] = q.Formats[0]
			}
			params = append(params, obj{"name": p.Name, "in": "query", "required": false, "description": p.Help, "schema": schema})
		}
		content := obj{}
		for _, f := range q.Formats {
			ct, _, _ := strings.Cut(contentTypes[f], ";")
			content[ct] = obj{"schema": obj{"type": "string", "description": formatHelp[f]}}
		}
		ok := obj{"description": "The answer, streamed.", "content": content}
		headers := obj{HeaderNote: obj{"description": "A note the command line writes on stderr (a --lang the range does not hold, a term that tokenizes to nothing); one per note.", "schema": obj{"type": "string"}}}
		if q.Retrieval {
			ok["description"] = "The tweets, in row key (time) order, streamed."
			headers[HeaderNextCursor] = obj{"description": "When limit is given and the page is full: the cursor of the next page (the row_key of its last tweet). A header for a page of up to 1 MB, a trailer after a longer one.", "schema": obj{"type": "string"}}
		}
		headers[HeaderSnapshot] = obj{"description": "On a store a stream is writing: when the snapshot answered from was taken.", "schema": obj{"type": "string", "format": "date-time"}}
		if q.Coverage != nil {
			headers[HeaderCoverage] = obj{"description": "How complete the answer is: the coverage object (JSON, the Coverage schema) of the question's range (from, to; an open bound is the data's extent): its spans, each covered, partial (a run over it failed or never finished, or runs cover part of it), missing (no run read it), empty (only runs that read nothing) or unknown (runs are recorded that say not what they read). The command line prints it as its coverage line on stderr.",
				"schema": obj{"type": "string"}}
		}
		ok["headers"] = headers
		paths["/api/"+q.Name] = obj{"get": obj{
			"operationId": q.Name,
			"summary":     q.Summary,
			"parameters":  params,
			"responses": obj{
				"200": ok,
				"400": errResp("A parameter is wrong: the command line's one-line message."),
				"503": errResp("Every slot (--max-inflight) stayed busy for the request's timeout, or the server is shutting down."),
				"504": errResp("The answer was not ready within the request's timeout (--timeout)."),
			},
		}}
	}
	paths["/healthz"] = obj{"get": obj{"operationId": "healthz", "summary": "200 while questions are answered (what from: store, snapshot or cassandra), 503 once shutting down.",
		"responses": obj{"200": obj{"description": "Serving."}, "503": obj{"description": "Shutting down."}}}}
	paths["/metrics"] = obj{"get": obj{"operationId": "metrics", "summary": "Prometheus metrics: requests and latency histograms per question.",
		"responses": obj{"200": obj{"description": "Text exposition format 0.0.4.", "content": obj{"text/plain": obj{"schema": obj{"type": "string"}}}}}}}
	doc := obj{
		"openapi": "3.0.3",
		"info": obj{
			"title":       "tweetindex",
			"version":     "1",
			"description": "The questions of tweetindex query, with the same parameters (the flags without their dashes) and the same answers. Times are RFC 3339 or UTC dates; a range [from, to) is exact to the second.",
		},
		"paths": paths,
		"components": obj{"schemas": obj{
			"Error": obj{
				"type":       "object",
				"properties": obj{"error": obj{"type": "string"}},
				"required":   []string{"error"},
			},
			"Coverage": coverageSchema(),
		}},
	}
	return json.MarshalIndent(doc, "", "  ")
}

// formatHelp describes the formats.
var formatHelp = map[string]string{
	"jsonl":   "JSON lines: an object per row (export: the stored JSON of each tweet).",
	"csv":     "CSV with a header line.",
	"geojson": "A GeoJSON FeatureCollection of the tweets' points.",
}

// defaultValue returns p's default as a JSON value of its type.
func defaultValue(p Param) any {
	switch p.Type {
	case "boolean":
		return p.Default == "true"
	case "integer":
		var n json.Number = json.Number(p.Default)
		return n
	}
	return p.Default
}

// coverageSchema describes the value of HeaderCoverage.
func coverageSchema() map[string]any {
	type obj = map[string]any
	status := obj{"type": "string", "enum": []string{"covered", "partial", "missing", "empty", "unknown"}}
	return obj{
		"type":        "object",
		"description": "The value of the " + HeaderCoverage + " header. Times are RFC 3339; a span is [from, to).",
		"properties": obj{
			"from":   obj{"type": "string", "format": "date-time", "description": "The range's start (absent when no tweet is stored and the range is open)."},
			"to":     obj{"type": "string", "format": "date-time", "description": "The range's end, exclusive."},
			"status": obj{"allOf": []obj{status}, "description": "The spans' one status, or partial when they differ."},
			"spans": obj{"type": "array", "items": obj{
				"type": "object",
				"properties": obj{
					"from":        obj{"type": "string", "format": "date-time"},
					"to":          obj{"type": "string", "format": "date-time"},
					"status":      status,
					"failed_runs": obj{"type": "integer", "description": "Runs over the span that failed or never finished and were not run again."},
				},
				"required": []string{"from", "to", "status"},
			}},
			"spans_left_off": obj{"type": "integer", "description": "Spans after the last one given (the header holds at most 50)."},
		},
		"required": []string{"status", "spans"},
	}
}
