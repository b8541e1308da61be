//! Invitations, members, removal and tenant isolation.

use reqwest::Method;
use serde_json::json;

use crate::support::{json_of, TestServer};

#[tokio::test]
async fn an_invited_user_joins_the_team_and_can_be_removed() {
    let server = TestServer::start().await;
    let (owner, owner_id, owner_tenant) = server
        .verified_account("owner@acme.example", "password-1")
        .await;
    let owner_access = owner["access_token"].as_str().expect("access");

    let (status, invitation) = json_of(
        server
            .bearer(Method::POST, "/v1/team/invite", owner_access)
            .json(&json!({"email": "Member@Acme.example", "role": "member"}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 201, "{invitation}");
    assert_eq!(invitation["data"]["email"], "member@acme.example");
    assert_eq!(invitation["data"]["tenant_id"], owner_tenant);
    let expires = chrono::DateTime::parse_from_rfc3339(
        invitation["data"]["expires_at"].as_str().expect("expires"),
    )
    .expect("rfc3339");
    let days = (expires.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_hours();
    assert!((167..=168).contains(&days), "{days} hours");
    let invite_token = server.mailed_token("invitation", 1).await;

    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/team/invite", owner_access)
            .json(&json!({"email": "x@acme.example", "role": "emperor"}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "role"]));

    // Someone else cannot use the invitation.
    let (stranger, _, _) = server
        .verified_account("stranger@other.example", "password-1")
        .await;
    let (status, body) = json_of(
        server
            .bearer(
                Method::POST,
                "/v1/team/accept",
                stranger["access_token"].as_str().expect("access"),
            )
            .json(&json!({"token": invite_token}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("invitation_email_mismatch"))
    );

    // The invitee signs up with the invited address, accepts, refreshes into the team.
    let (member, member_id, _) = server
        .verified_account("member@acme.example", "password-1")
        .await;
    let (status, body) = json_of(
        server
            .bearer(
                Method::POST,
                "/v1/team/accept",
                member["access_token"].as_str().expect("access"),
            )
            .json(&json!({"token": invite_token}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["tenant_id"], owner_tenant);
    let (status, refreshed) = server
        .post_json(
            "/v1/auth/refresh",
            json!({"refresh_token": member["refresh_token"]}),
        )
        .await;
    assert_eq!(status, 200);
    let member_access = refreshed["data"]["access_token"]
        .as_str()
        .expect("access")
        .to_string();
    let (_, me) = json_of(
        server
            .bearer(Method::GET, "/v1/me", &member_access)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(me["data"]["tenant_id"], owner_tenant);
    assert_eq!(me["data"]["role"], "member");

    let (status, members) = json_of(
        server
            .bearer(Method::GET, "/v1/team/members", owner_access)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(members["data"]["total"], 2);
    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/team/invite", &member_access)
            .json(&json!({"email": "third@acme.example", "role": "member"}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (403, Some("forbidden")));
    let (status, _) = json_of(
        server
            .bearer(
                Method::DELETE,
                &format!("/v1/team/members/{owner_id}"),
                &member_access,
            )
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!(status, 403, "a member cannot remove anyone");

    // The last owner cannot be removed; the member can.
    let (status, body) = json_of(
        server
            .bearer(
                Method::DELETE,
                &format!("/v1/team/members/{owner_id}"),
                owner_access,
            )
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (409, Some("last_owner")));
    let (status, _) = json_of(
        server
            .bearer(
                Method::DELETE,
                &format!("/v1/team/members/{member_id}"),
                owner_access,
            )
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!(status, 200);
    // The removed member's token for the team stops working at once.
    let (status, _) = json_of(
        server
            .bearer(Method::GET, "/v1/usage", &member_access)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 401);
    let (status, body) = json_of(
        server
            .bearer(
                Method::DELETE,
                &format!("/v1/team/members/{member_id}"),
                owner_access,
            )
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("member_not_found"))
    );

    // The invitation was single use.
    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/team/accept", owner_access)
            .json(&json!({"token": invite_token}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invitation_used"))
    );
}

#[tokio::test]
async fn invitations_expire_after_seven_days() {
    let server = TestServer::start().await;
    let (owner, _, _) = server
        .verified_account("owner2@acme.example", "password-1")
        .await;
    let (status, _) = json_of(
        server
            .bearer(
                Method::POST,
                "/v1/team/invite",
                owner["access_token"].as_str().expect("access"),
            )
            .json(&json!({"email": "late@acme.example", "role": "admin"}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 201);
    let token = server.mailed_token("invitation", 1).await;
    let (late, _, _) = server
        .verified_account("late@acme.example", "password-1")
        .await;
    server.advance_clock(7 * 24 * 3600 + 1).await;
    // The access token expired with the clock too: refresh first.
    let (_, refreshed) = server
        .post_json(
            "/v1/auth/refresh",
            json!({"refresh_token": late["refresh_token"]}),
        )
        .await;
    let (status, body) = json_of(
        server
            .bearer(
                Method::POST,
                "/v1/team/accept",
                refreshed["data"]["access_token"].as_str().expect("access"),
            )
            .json(&json!({"token": token}))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invitation_expired"))
    );
}

#[tokio::test]
async fn a_key_of_one_tenant_cannot_touch_another_tenants_members() {
    let server = TestServer::start().await;
    let (a, _, _) = server
        .verified_account("a@tenant-a.example", "password-1")
        .await;
    let (_, b_user, _) = server
        .verified_account("b@tenant-b.example", "password-1")
        .await;
    let (_, key) = json_of(
        server
            .bearer(
                Method::POST,
                "/v1/me/api-keys",
                a["access_token"].as_str().expect("access"),
            )
            .send()
            .await
            .expect("POST"),
    )
    .await;
    let key = key["data"]["api_key"].as_str().expect("key");
    let (status, body) = json_of(
        server
            .with_key(Method::DELETE, &format!("/v1/team/members/{b_user}"), key)
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("member_not_found"))
    );
    let (_, members) = json_of(
        server
            .with_key(Method::GET, "/v1/team/members", key)
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert!(!members.to_string().contains("tenant-b"), "{members}");
    let (status, _) = json_of(
        server
            .with_key(Method::DELETE, "/v1/team/members/abc", key)
            .send()
            .await
            .expect("DELETE"),
    )
    .await;
    assert_eq!(status, 422);
}
