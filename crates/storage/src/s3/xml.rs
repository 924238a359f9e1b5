//! Parsing of S3 ListObjectsV2 answers (keys, sizes, common prefixes, continuation token).

use quick_xml::events::Event;
use quick_xml::Reader;

/// One page of a ListObjectsV2 answer; keys are full bucket keys.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ListPage {
    /// The objects listed: key and size in bytes.
    pub objects: Vec<(String, u64)>,
    /// The common prefixes ("folders") of a delimited listing.
    pub prefixes: Vec<String>,
    /// The continuation token of the next page, if the listing is truncated.
    pub next_token: Option<String>,
}

/// Parses a `ListBucketResult` document.
pub fn parse_list(xml: &[u8]) -> Result<ListPage, String> {
    let mut reader = Reader::from_reader(xml);
    let mut page = ListPage::default();
    let mut stack: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut key: Option<String> = None;
    let mut size: Option<u64> = None;
    let mut truncated = false;
    loop {
        match reader.read_event().map_err(|e| e.to_string())? {
            Event::Start(e) => {
                stack.push(String::from_utf8_lossy(e.local_name().as_ref()).into_owned());
                text.clear();
            }
            Event::Text(t) => text.push_str(&t.decode().map_err(|e| e.to_string())?),
            Event::CData(t) => text.push_str(&t.decode().map_err(|e| e.to_string())?),
            Event::GeneralRef(r) => {
                if let Some(c) = r.resolve_char_ref().map_err(|e| e.to_string())? {
                    text.push(c);
                } else {
                    let name = r.decode().map_err(|e| e.to_string())?;
                    text.push_str(match name.as_ref() {
                        "amp" => "&",
                        "lt" => "<",
                        "gt" => ">",
                        "quot" => "\"",
                        "apos" => "'",
                        other => return Err(format!("unknown XML entity &{other};")),
                    });
                }
            }
            Event::End(_) => {
                let name = stack.pop().unwrap_or_default();
                let parent = stack.last().map(String::as_str).unwrap_or("");
                match (parent, name.as_str()) {
                    ("Contents", "Key") => key = Some(std::mem::take(&mut text)),
                    ("Contents", "Size") => {
                        size = Some(
                            text.trim()
                                .parse()
                                .map_err(|_| format!("bad object size {text:?}"))?,
                        )
                    }
                    ("CommonPrefixes", "Prefix") => page.prefixes.push(std::mem::take(&mut text)),
                    ("ListBucketResult", "IsTruncated") => truncated = text.trim() == "true",
                    ("ListBucketResult", "NextContinuationToken") => {
                        page.next_token = Some(std::mem::take(&mut text))
                    }
                    ("ListBucketResult", "Contents") => {
                        let k = key.take().ok_or("a Contents entry without Key")?;
                        page.objects.push((k, size.take().unwrap_or(0)));
                    }
                    _ => {}
                }
                text.clear();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !truncated {
        page.next_token = None;
    } else if page.next_token.is_none() {
        return Err("a truncated listing without NextContinuationToken".to_string());
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_contents_prefixes_and_token() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>b</Name><Prefix>w/</Prefix><IsTruncated>true</IsTruncated>
  <Contents><Key>w/a&amp;b.txt</Key><Size>12</Size><ETag>"x"</ETag></Contents>
  <Contents><Key>w/c</Key><Size>0</Size></Contents>
  <CommonPrefixes><Prefix>w/db.db/</Prefix></CommonPrefixes>
  <NextContinuationToken>tok/1=</NextContinuationToken>
</ListBucketResult>"#;
        let page = parse_list(xml).unwrap();
        assert_eq!(
            page.objects,
            vec![("w/a&b.txt".to_string(), 12), ("w/c".to_string(), 0)]
        );
        assert_eq!(page.prefixes, vec!["w/db.db/"]);
        assert_eq!(page.next_token.as_deref(), Some("tok/1="));
        assert!(parse_list(
            b"<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>"
        )
        .is_err());
    }
}
