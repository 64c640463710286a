package org.herald.client;

/** The title and body Herald rendered from the event's alert template for the device's locale (either may be null). */
public record HeraldAlert(String title, String body) {}
