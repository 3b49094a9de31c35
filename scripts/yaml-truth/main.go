// Command yaml-truth records how Kubernetes reads YAML: for each file named on the command
// line, the text is cut into documents as k8s.io/apimachinery's YAMLReader cuts a manifest
// stream (at lines that start with "---" followed by nothing but blanks or a comment), and
// each document goes through sigs.k8s.io/yaml.YAMLToJSON (go-yaml v2). One line per file:
//
//	NAME<TAB>ok<TAB>[json of each document, in order]
//	NAME<TAB>error<TAB>the error text
//
// It is run by scripts/record-yaml-truth.sh; it is not part of driftlint's build.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// documents cuts text like apimachinery's YAMLReader.Read: a line starting with "---" ends
// the current document when what follows it is blank or a comment (anything else is an
// error there), and empty documents are skipped.
func documents(text []byte) ([][]byte, error) {
	var docs [][]byte
	var buffer bytes.Buffer
	reader := bufio.NewReader(bytes.NewReader(text))
	for {
		line, err := reader.ReadBytes('\n')
		if bytes.HasPrefix(line, []byte("---")) {
			trimmed := strings.TrimSpace(string(line[3:]))
			if len(trimmed) > 0 && trimmed[0] != '#' {
				return nil, fmt.Errorf("invalid Yaml document separator: %s", trimmed)
			}
			if buffer.Len() != 0 {
				docs = append(docs, append([]byte(nil), buffer.Bytes()...))
				buffer.Reset()
			}
			if err == io.EOF {
				return docs, nil
			}
			continue
		}
		buffer.Write(line)
		if err == io.EOF {
			if buffer.Len() != 0 {
				docs = append(docs, append([]byte(nil), buffer.Bytes()...))
			}
			return docs, nil
		}
	}
}

func record(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".yaml")
	text, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("%s\terror\tread: %v", name, err)
	}
	docs, err := documents(text)
	if err != nil {
		return fmt.Sprintf("%s\terror\t%s", name, oneLine(err))
	}
	values := make([]string, 0, len(docs))
	for _, doc := range docs {
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return fmt.Sprintf("%s\terror\t%s", name, oneLine(err))
		}
		values = append(values, string(j))
	}
	return fmt.Sprintf("%s\tok\t[%s]", name, strings.Join(values, ","))
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for _, path := range os.Args[1:] {
		fmt.Fprintln(out, record(path))
	}
}
