//! SigV4 for S3 through the `aws-sigv4` crate: signed headers for requests, query signatures for presigned URLs.

use super::S3Credentials;
use crate::transport::HttpRequest;
use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    sign, PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest,
    SignatureLocation, SigningSettings, UriPathNormalizationMode,
};
use aws_sigv4::sign::v4;
use std::time::{Duration, SystemTime};

fn s3_settings() -> SigningSettings {
    let mut settings = SigningSettings::default();
    // S3 signs the path as sent (encoded once) and without normalisation.
    settings.percent_encoding_mode = PercentEncodingMode::Single;
    settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
    settings
}

fn credentials(c: &S3Credentials) -> Credentials {
    Credentials::new(
        c.access_key_id.clone(),
        c.secret_access_key.clone(),
        c.session_token.clone(),
        None,
        "lakescope",
    )
}

/// Adds `Authorization`, `x-amz-date`, `x-amz-content-sha256` (and the session token) to `request`.
/// Errors never contain the secret.
pub fn sign_request(
    request: &mut HttpRequest,
    creds: &S3Credentials,
    region: &str,
    time: SystemTime,
) -> Result<(), String> {
    sign_request_for(request, creds, region, "s3", time)
}

/// [`sign_request`] for another AWS service name (tests set up IAM users with it).
pub fn sign_request_for(
    request: &mut HttpRequest,
    creds: &S3Credentials,
    region: &str,
    service: &str,
    time: SystemTime,
) -> Result<(), String> {
    let mut settings = s3_settings();
    settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    let identity = credentials(creds).into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(service)
        .time(time)
        .settings(settings)
        .build()
        .map_err(|e| format!("cannot set up SigV4 signing: {e}"))?
        .into();
    let signable = SignableRequest::new(
        request.method,
        request.url.as_str(),
        request
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str())),
        SignableBody::Bytes(&request.body),
    )
    .map_err(|e| format!("cannot sign the request: {e}"))?;
    let (instructions, _signature) = sign(signable, &params)
        .map_err(|e| format!("cannot sign the request: {e}"))?
        .into_parts();
    let (headers, _params) = instructions.into_parts();
    for header in headers {
        request.headers.push((
            header.name().to_ascii_lowercase(),
            header.value().to_string(),
        ));
    }
    Ok(())
}

/// A presigned URL for `method` on `url` (which may already carry a query), valid for `expires`.
pub fn presign_url(
    method: &str,
    url: &str,
    creds: &S3Credentials,
    region: &str,
    time: SystemTime,
    expires: Duration,
) -> Result<String, String> {
    let mut settings = s3_settings();
    settings.payload_checksum_kind = PayloadChecksumKind::NoHeader;
    settings.signature_location = SignatureLocation::QueryParams;
    settings.expires_in = Some(expires);
    let identity = credentials(creds).into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("s3")
        .time(time)
        .settings(settings)
        .build()
        .map_err(|e| format!("cannot set up SigV4 presigning: {e}"))?
        .into();
    let signable = SignableRequest::new(
        method,
        url,
        std::iter::empty(),
        SignableBody::UnsignedPayload,
    )
    .map_err(|e| format!("cannot presign the request: {e}"))?;
    let (instructions, _signature) = sign(signable, &params)
        .map_err(|e| format!("cannot presign the request: {e}"))?
        .into_parts();
    let mut out = url.to_string();
    for (name, value) in instructions.params() {
        out.push(if out.contains('?') { '&' } else { '?' });
        out.push_str(name);
        out.push('=');
        out.push_str(&super::encode_query(value));
    }
    Ok(out)
}
